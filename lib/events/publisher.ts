import { config } from "../config";
import { createEventBridgePublisher } from "./eventbridge-publisher";
import { createFilePublisher } from "./file-publisher";
import type { EventPublisher } from "./publish";

let current: EventPublisher | undefined;

/** The configured publisher, made once per container: the bus on AWS, the events file locally. */
export function eventPublisher(): EventPublisher {
  const { busName, file } = config().events;
  current ??= busName ? createEventBridgePublisher(busName) : createFilePublisher(file);
  return current;
}
