import type { Context, DynamoDBBatchResponse, DynamoDBStreamEvent } from "aws-lambda";
import { config } from "../lib/config";
import { endedSessionsOf } from "../lib/events/ended-sessions";
import type { ChangeRecord } from "../lib/events/mapping";
import { publishChanges } from "../lib/events/publish";
import { eventPublisher, identityEventKeeper } from "../lib/events/publisher";
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

/**
 * Back-Channel Logout for the sessions that ended in the batch. Loaded only for a batch that
 * has one: most batches have none, and the signing keys' client and jose would weigh on
 * every cold start.
 */
async function tellClients(changes: ChangeRecord[]): Promise<void> {
  const ended = endedSessionsOf(changes);
  if (ended.length === 0) return;
  const { tellEndedSessionsOnce } = await import("../lib/events/backchannel-delivery");
  await tellEndedSessionsOnce(ended);
}

async function publishBatch(event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> {
  const changes = event.Records.map(changeOf);
  const [outcome] = await Promise.all([
    publishChanges(changes, eventPublisher(), config().issuer, identityEventKeeper()),
    tellClients(changes),
  ]);
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
