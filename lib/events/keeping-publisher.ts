import type { IdentityEventLog } from "../domain/audit/ports";
import type { EventPublisher } from "./publish";

/**
 * Publishes, then keeps what the destination accepted for the admin console's event stream.
 * A keep that fails throws, so the stream retries the batch: the bus may see an event twice
 * (consumers de-duplicate by id), the console never misses one it accepted.
 */
export function keepingPublished(publisher: EventPublisher, log: Pick<IdentityEventLog, "keep">): EventPublisher {
  return {
    async publish(events) {
      const refused = await publisher.publish(events);
      const notKept = new Set(refused.map((event) => event.id));
      await log.keep(events.filter((event) => !notKept.has(event.id)));
      return refused;
    },
  };
}
