import type { IdentityEventLog } from "../domain/audit/ports";
import type { CloudEvent } from "./cloud-event";
import { type ChangeRecord, eventsOf } from "./mapping";

/** Where events go: EventBridge on AWS, a JSON-lines file locally. */
export interface EventPublisher {
  /** Sends the events in order; answers those that were not accepted (a partial failure). */
  publish(events: CloudEvent[]): Promise<CloudEvent[]>;
}

/** Attempts per event within one invocation before the stream is asked to retry. */
export const PUBLISH_ATTEMPTS = 3;

export interface BatchOutcome {
  published: number;
  /**
   * The first change with an event still refused after PUBLISH_ATTEMPTS: Lambda resumes the
   * stream there (ReportBatchItemFailures), so that change and all after it come again.
   */
  failedSequence?: string;
}

/**
 * One stream batch: maps every change and publishes the events, retrying refused ones
 * in place; what is still refused makes the stream redeliver from its change on. Events
 * published before that point may come twice: consumers de-duplicate by id. What was
 * accepted is then kept for the console (`keeper`, with each change's sequence to order
 * events of one second); a keep that fails throws, so the stream retries the batch.
 */
export async function publishChanges(
  changes: ChangeRecord[],
  publisher: EventPublisher,
  source: string,
  keeper?: Pick<IdentityEventLog, "keep">,
  pause: (attempt: number) => Promise<void> = backoff,
): Promise<BatchOutcome> {
  const owner = new Map<string, ChangeRecord>();
  let pending: CloudEvent[] = [];
  for (const change of changes) {
    for (const event of eventsOf(change, source)) {
      owner.set(event.id, change);
      pending.push(event);
    }
  }
  const all = pending;
  for (let attempt = 1; pending.length > 0 && attempt <= PUBLISH_ATTEMPTS; attempt += 1) {
    if (attempt > 1) await pause(attempt);
    pending = await publisher.publish(pending);
  }
  if (keeper) {
    const refused = new Set(pending.map((event) => event.id));
    const accepted = all.filter((event) => !refused.has(event.id));
    await keeper.keep(accepted.map((event) => ({ ...event, sequence: owner.get(event.id)?.sequence })));
  }
  const total = all.length;
  if (pending.length === 0) return { published: total };
  const failed = new Set(pending.map((event) => owner.get(event.id)));
  const first = changes.find((change) => failed.has(change));
  return { published: total - pending.length, failedSequence: first?.sequence };
}

function backoff(attempt: number): Promise<void> {
  return new Promise((done) => setTimeout(done, 100 * 2 ** attempt));
}
