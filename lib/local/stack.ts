import { existsSync, readFileSync } from "node:fs";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { config } from "../config";
import { ensureTable } from "../store/table-admin";
import { ensureSigningKeyExists } from "./bootstrap";
import { portAnswers, type RunningDynamo, startDynamoLocal } from "./dynamodb-local";

export const LOCAL_DATA_DIR = ".local/dynamodb";
export const BOOTSTRAP_FILE = ".local/bootstrap-client.json";

/**
 * Creates the table and the first signing key when they are missing; the local stack's table
 * streams its changes (the events file), a test's only when the test reads the stream.
 */
export async function prepareTable(endpoint: string, { stream = true }: { stream?: boolean } = {}): Promise<void> {
  const admin = new DynamoDBClient({
    endpoint,
    region: config().region,
    credentials: { accessKeyId: "local", secretAccessKey: "local" },
  });
  try {
    await ensureTable(admin, config().tableName, { stream });
  } finally {
    admin.destroy();
  }
  await ensureSigningKeyExists();
}

/**
 * For tools that work on the local table (invoke, svc-admin): use the DynamoDB Local
 * of a running `npm start`, or start one on the same data for the duration of the tool.
 */
export async function attachLocalStorage(): Promise<{ release(): Promise<void> }> {
  const { dynamodbPort, dynamodbWaitSeconds, inMemory } = config();
  let running: RunningDynamo | undefined;
  if (!(await portAnswers(dynamodbPort))) {
    running = await startDynamoLocal({
      port: dynamodbPort,
      dataDir: inMemory ? undefined : LOCAL_DATA_DIR,
      waitSeconds: dynamodbWaitSeconds,
    });
  }
  await prepareTable(`http://127.0.0.1:${dynamodbPort}`);
  return { release: async () => running?.stop() };
}

/**
 * The bootstrap client's credentials as local tools can know them: from the
 * environment, or saved by an earlier `npm start`. Fills the `{{clientBasic}}`,
 * `{{clientId}}` and `{{clientSecret}}` placeholders of sample events.
 */
export function bootstrapCredentialValues(): Record<string, string> {
  let { id, secret } = config().bootstrapClient;
  if ((!id || !secret) && existsSync(BOOTSTRAP_FILE)) {
    const saved = JSON.parse(readFileSync(BOOTSTRAP_FILE, "utf8")) as { clientId: string; secret: string };
    id = saved.clientId;
    secret = saved.secret;
  }
  if (!id || !secret) return {};
  return {
    clientId: id,
    clientSecret: secret,
    clientBasic: Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString("base64"),
  };
}
