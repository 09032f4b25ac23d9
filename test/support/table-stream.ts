import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll } from "vitest";
import { config } from "../../lib/config";
import { reachesEventsFunction } from "../../lib/events/stream-filter";
import { ensureTable } from "../../lib/store/table-admin";
import { openStreamReader, type TableStreamReader } from "../../lib/store/table-stream";

/**
 * Turns the file's table's stream on and reads it from now on, as Lambda's event source
 * would (the suite's tables stream only where a test reads the stream: table-per-file.ts).
 */
export function useTableStream(): () => TableStreamReader {
  let reader: TableStreamReader | undefined;
  let tables: DynamoDBClient | undefined;
  beforeAll(async () => {
    const endpoint = `http://127.0.0.1:${config().dynamodbPort}`;
    const client = new DynamoDBClient({
      endpoint,
      region: config().region,
      credentials: { accessKeyId: "l", secretAccessKey: "l" },
    });
    tables = client;
    await ensureTable(client, config().tableName, { stream: true });
    reader = await openStreamReader(client, {
      endpoint,
      region: config().region,
      tableName: config().tableName,
      from: "LATEST",
    });
  });
  afterAll(() => {
    reader?.close();
    tables?.destroy();
  });
  return () => {
    const open = reader;
    if (!open) throw new Error("the stream reader opens in beforeAll");
    // Lambda's event filtering, as the stack configures it: the kept identity events never arrive.
    return { next: async () => (await open.next()).filter(reachesEventsFunction), close: () => open.close() };
  };
}
