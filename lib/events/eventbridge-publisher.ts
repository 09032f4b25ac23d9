import { EventBridgeClient, PutEventsCommand } from "@aws-sdk/client-eventbridge";
import { traced } from "../tracing";
import type { CloudEvent } from "./cloud-event";
import type { EventPublisher } from "./publish";

/** PutEvents takes at most this many entries per call. */
export const PUT_EVENTS_MAX = 10;

/** EventBridge's `source` of every entry, for rules (the CloudEvent's own source is the issuer). */
export const EVENTBRIDGE_SOURCE = "svc.identity";

/**
 * Publishes to one event bus, ten entries per PutEvents, in order. Each entry's detail is
 * the whole CloudEvent; its detail-type is the event's type, so a rule can match either.
 */
export function createEventBridgePublisher(
  busName: string,
  client: EventBridgeClient = traced(new EventBridgeClient({})),
): EventPublisher {
  return {
    async publish(events) {
      const refused: CloudEvent[] = [];
      for (let start = 0; start < events.length; start += PUT_EVENTS_MAX) {
        const chunk = events.slice(start, start + PUT_EVENTS_MAX);
        const answer = await client.send(
          new PutEventsCommand({
            Entries: chunk.map((event) => ({
              EventBusName: busName,
              Source: EVENTBRIDGE_SOURCE,
              DetailType: event.type,
              Detail: JSON.stringify(event),
              Time: new Date(event.time),
            })),
          }),
        );
        if (!answer.FailedEntryCount) continue;
        // Entries answer in the order sent; a failed one has an ErrorCode and no EventId.
        chunk.forEach((event, i) => {
          const entry = answer.Entries?.[i];
          if (!entry || entry.ErrorCode || !entry.EventId) refused.push(event);
        });
      }
      return refused;
    },
  };
}
