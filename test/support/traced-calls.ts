import { GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import { config } from "../../lib/config";
import type { ServiceSettings } from "../../lib/config/settings";
import { parseSettings } from "../../lib/config/validation";
import { documentClient } from "../../lib/document-client";
import { createHookRunner } from "../../lib/hooks/runner";
import { transportsFor } from "../../lib/hooks/transports";

/**
 * Run by test/lib/tracing.test.ts in a process with Lambda's tracing environment: a DynamoDB
 * write and read of a token, a userMigration hook on a Lambda target (the test's loopback
 * stand-in for the Lambda API) given a password, and a preSignIn hook whose module throws
 * with that password in its message. Argument: `<password> <token> <module hook path>`.
 */

const [password, token, moduleHook] = process.argv.slice(2);
const key = { PK: "TRACE#token", SK: "TOKEN" };

await documentClient().send(new PutCommand({ TableName: config().tableName, Item: { ...key, token } }));
await documentClient().send(new GetCommand({ TableName: config().tableName, Key: key }));

const settings = parseSettings({
  hooks: {
    userMigration: { target: "arn:aws:lambda:eu-west-1:123456789012:function:migrate", timeoutMs: 5000 },
    preSignIn: { target: moduleHook, timeoutMs: 5000 },
  },
}) as ServiceSettings;
const runner = createHookRunner(settings.hooks, transportsFor(config().region), () => undefined);

await runner.call("userMigration", { trigger: "signIn", username: "bob", password });
(globalThis as { hookScript?: unknown }).hookScript = {
  preSignIn: () => {
    throw new Error(`refused ${password}`);
  },
};
await runner.call("preSignIn", { clientId: "app", sub: "bob", method: "password" }).catch(() => undefined);
documentClient().destroy();
