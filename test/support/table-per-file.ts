import { randomBytes } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, inject } from "vitest";

/**
 * Each test file gets its own table on the suite's DynamoDB Local, so files run in
 * parallel without seeing each other's data. Runs before the file imports anything.
 */
process.env.DYNAMODB_PORT = String(inject("dynamodbPort"));
process.env.TABLE_NAME = `test-${randomBytes(6).toString("hex")}`;
process.env.LOG_LEVEL ??= "silent";
// Each file's messages go to its own outbox, read by its tests (docs/configuration.md format).
process.env.SVC_OUTBOX_FILE = join(tmpdir(), `${process.env.TABLE_NAME}-outbox.jsonl`);
// Events the events function publishes locally go to the file's own events file (docs/events.md).
process.env.SVC_EVENTS_FILE = join(tmpdir(), `${process.env.TABLE_NAME}-events.jsonl`);
delete process.env.EVENT_BUS_NAME;
delete process.env.SVC_MESSAGES;
// The data key that seals stored external tokens and signs bind states (lib/crypto/data-key.ts).
process.env.SVC_DATA_KEY = randomBytes(32).toString("base64");
delete process.env.SVC_CONFIG;

const [{ prepareTable }, { DeleteTableCommand, DynamoDBClient }] = await Promise.all([
  import("../../lib/local/stack"),
  import("@aws-sdk/client-dynamodb"),
]);
const endpoint = `http://127.0.0.1:${process.env.DYNAMODB_PORT}`;
await prepareTable(endpoint, { stream: false });
// Registered first, so it runs after the file's own hooks: the suite's DynamoDB Local keeps
// every table in memory, and slows down as a run leaves them behind.
afterAll(async () => {
  const admin = new DynamoDBClient({
    endpoint,
    region: "local",
    credentials: { accessKeyId: "local", secretAccessKey: "local" },
  });
  await admin.send(new DeleteTableCommand({ TableName: process.env.TABLE_NAME })).finally(() => admin.destroy());
});
