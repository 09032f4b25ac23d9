import { config } from "../config";
import { documentClient } from "../document-client";
import type { IdentityEventLog } from "../domain/audit/ports";
import { createIdentityEventStore } from "../store/identity-events";
import { createEventBridgePublisher } from "./eventbridge-publisher";
import { createFilePublisher } from "./file-publisher";
import type { EventPublisher } from "./publish";

let current: EventPublisher | undefined;
let keeper: IdentityEventLog | undefined;

/** The configured publisher, made once per container: the bus on AWS, the events file locally. */
export function eventPublisher(): EventPublisher {
  const { busName, file } = config().events;
  current ??= busName ? createEventBridgePublisher(busName) : createFilePublisher(file);
  return current;
}

/** Where published events are kept for the admin console: none when audit.identityEventDays is 0. */
export function identityEventKeeper(): IdentityEventLog | undefined {
  const days = config().settings.audit.identityEventDays;
  if (days === 0) return undefined;
  keeper ??= createIdentityEventStore({ client: documentClient(), tableName: config().tableName }, days);
  return keeper;
}
