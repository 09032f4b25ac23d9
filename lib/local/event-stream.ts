import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import type { DynamoDBStreamEvent } from "aws-lambda";
import { handler } from "../../functions/events";
import { config } from "../config";
import { reachesEventsFunction } from "../events/stream-filter";
import { openStreamReader } from "../store/table-stream";

/** Lambda's batch size for the events function (infra/stack.ts). */
const BATCH_SIZE = 100;
const POLL_MS = 500;

/**
 * `npm start`'s stand-in for Lambda's event source mapping: polls DynamoDB Local's stream
 * and runs the events function on each batch of the changes its filter passes (in this process, or `deliver` for the
 * cloud assembly's), which appends to the events file. Starts at the stream's end: changes made while it was not running are not
 * published.
 */
export async function startEventStream(
  endpoint: string,
  deliver: (event: DynamoDBStreamEvent) => Promise<unknown> = handler,
): Promise<{ stop(): Promise<void> }> {
  const tables = new DynamoDBClient({
    endpoint,
    region: config().region,
    credentials: { accessKeyId: "local", secretAccessKey: "local" },
  });
  const reader = await openStreamReader(tables, {
    endpoint,
    region: config().region,
    tableName: config().tableName,
    from: "LATEST",
  });
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      try {
        const records = (await reader.next()).filter(reachesEventsFunction);
        for (let start = 0; start < records.length; start += BATCH_SIZE) {
          await deliver({ Records: records.slice(start, start + BATCH_SIZE) });
        }
      } catch (error) {
        // DynamoDB Local stopping under us, or a mapping bug: say so and keep polling.
        if (!stopped) console.error(`event stream: ${(error as Error).message}`);
      }
      await new Promise((done) => setTimeout(done, POLL_MS));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      reader.close();
      tables.destroy();
    },
  };
}
