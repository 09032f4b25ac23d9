import { freePort } from "../../lib/local/dynamodb-local";

/**
 * The bench's own stack on loopback: DynamoDB Local in memory on a free port, the table,
 * a signing key and the bootstrap client. Environment first, because config() reads it once.
 */

export const BENCH_CLIENT = { id: "bench-app", secret: "bench-app-secret-0123456789abcdef0123456789" };

/** `settings`: the operator settings (SVC_CONFIG) the stack runs with. */
export async function startLocalStack(settings: Record<string, unknown>) {
  const dynamodbPort = await freePort();
  delete process.env.SVC_CONFIG;
  Object.assign(process.env, {
    SVC_CONFIG_JSON: JSON.stringify(settings),
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
    SVC_IN_MEMORY: "1",
    DYNAMODB_PORT: String(dynamodbPort),
    DYNAMODB_ENDPOINT: `http://127.0.0.1:${dynamodbPort}`,
    TABLE_NAME: "svc-identity-bench",
    SVC_BOOTSTRAP_CLIENT_ID: BENCH_CLIENT.id,
    SVC_BOOTSTRAP_CLIENT_SECRET: BENCH_CLIENT.secret,
    SVC_MESSAGES: "outbox",
    SVC_OUTBOX_FILE: ".local/bench-outbox.jsonl",
  });
  // Imported after the environment is set: these modules read config() on first use.
  const { setEnvDefaults } = await import("../../lib/config");
  setEnvDefaults({});
  const { ensureLocalDataKey } = await import("../../lib/local/data-key");
  ensureLocalDataKey(undefined);
  const { startDynamoLocal } = await import("../../lib/local/dynamodb-local");
  const { prepareTable } = await import("../../lib/local/stack");
  const { ensureBootstrapClient } = await import("../../lib/local/bootstrap");
  const dynamo = await startDynamoLocal({ port: dynamodbPort });
  await prepareTable(dynamo.endpoint);
  await ensureBootstrapClient(undefined);
  return dynamo;
}
