import type { Context, DynamoDBBatchResponse, DynamoDBStreamEvent } from "aws-lambda";
import { config } from "../lib/config";
import { publishChanges } from "../lib/events/publish";
import { eventPublisher } from "../lib/events/publisher";
import { changeOf } from "../lib/events/stream-records";
import { log, withLogContext } from "../lib/log";

/**
 * The event stream (docs/events.md): a batch of the table's stream records -> CloudEvents on
 * the event bus. No HTTP route; Lambda's event source mapping calls it, and locally the
 * stream poller of `npm start` (lib/local/event-stream.ts). An event still refused after
 * the retries reports its record as the batch's failure, so the stream resumes there.
 */
export function handler(event: DynamoDBStreamEvent, context?: Pick<Context, "awsRequestId">) {
  // The local poller has no invocation id; the batch's first record names it instead.
  const requestId = context?.awsRequestId ?? event.Records[0]?.eventID ?? "";
  return withLogContext({ requestId, function: "events" }, () => publishBatch(event));
}

async function publishBatch(event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> {
  const changes = event.Records.map(changeOf);
  const outcome = await publishChanges(changes, eventPublisher(), config().issuer);
  if (outcome.failedSequence === undefined) {
    log.info("events published", { records: changes.length, events: outcome.published });
    return { batchItemFailures: [] };
  }
  log.warn("events refused by the bus; the stream retries from the first refused change", {
    records: changes.length,
    events: outcome.published,
    from: outcome.failedSequence,
  });
  return { batchItemFailures: [{ itemIdentifier: outcome.failedSequence }] };
}
