import { config } from "../config";
import { documentClient } from "../document-client";
import { createIdentityEventStore } from "../store/identity-events";
import { createEventBridgePublisher } from "./eventbridge-publisher";
import { createFilePublisher } from "./file-publisher";
import { keepingPublished } from "./keeping-publisher";
import type { EventPublisher } from "./publish";

let current: EventPublisher | undefined;

/**
 * The configured publisher, made once per container: the bus on AWS, the events file locally;
 * what it accepts is kept audit.identityEventDays for the admin console, unless that is 0.
 */
export function eventPublisher(): EventPublisher {
  if (current) return current;
  const { busName, file } = config().events;
  const destination = busName ? createEventBridgePublisher(busName) : createFilePublisher(file);
  const days = config().settings.audit.identityEventDays;
  current =
    days > 0
      ? keepingPublished(
          destination,
          createIdentityEventStore({ client: documentClient(), tableName: config().tableName }, days),
        )
      : destination;
  return current;
}
