import type { DynamoDBRecord } from "aws-lambda";
import { ENTITY } from "../store/keys";

/**
 * Which of the table's changes reach the events function: all but the identity events it
 * keeps itself (publishChanges in lib/events/publish.ts), written and expired, which would only wake
 * it again for nothing. The patterns are Lambda's event filtering (infra/stack.ts); the
 * predicate is the same rule for `npm start`'s poller and the tests' stream reader.
 */
const notKept = { entity: { S: [{ "anything-but": [ENTITY.identityEvent] }] } };

export const STREAM_FILTER_PATTERNS = [
  { eventName: ["INSERT", "MODIFY"], dynamodb: { NewImage: notKept } },
  { eventName: ["REMOVE"], dynamodb: { OldImage: notKept } },
] as const;

export function reachesEventsFunction(record: DynamoDBRecord): boolean {
  const image = record.eventName === "REMOVE" ? record.dynamodb?.OldImage : record.dynamodb?.NewImage;
  const entity = image?.entity?.S;
  return entity !== undefined && entity !== ENTITY.identityEvent;
}
