import type { EventPosition, IdentityEventFilter, IdentityEventLog, KeptIdentityEvent } from "../domain/audit/ports";
import { batchWriteAll } from "./batch";
import type { StoreDeps } from "./client";
import { hourShardReader, type LogFilter } from "./hour-shards";
import { ENTITY, itemOf, keys } from "./keys";

type Item = Record<string, unknown>;

/** `#`-names for both: `type` is a reserved word. */
function filterExpression(filter: IdentityEventFilter): LogFilter {
  const parts: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  for (const [name, value] of [
    ["type", filter.type],
    ["subject", filter.subject],
  ] as const) {
    if (value === undefined) continue;
    parts.push(`#${name} = :${name}`);
    names[`#${name}`] = name;
    values[`:${name}`] = value;
  }
  return { ...(parts.length > 0 && { expression: parts.join(" AND ") }), names, values };
}

const eventOf = (item: Item): KeptIdentityEvent => ({
  id: item.eventId as string,
  type: item.type as string,
  time: item.time as string,
  subject: item.subject as string,
  data: (item.data ?? {}) as Record<string, unknown>,
});

/**
 * The identity events the stream published, kept `keptDays` (TTL) in partitions by hour and
 * shard of their subject. Keeping one again (a batch the stream redelivers) writes the same
 * key: its id and time come from the stream record.
 */
export function createIdentityEventStore({ client, tableName }: StoreDeps, keptDays: number): IdentityEventLog {
  const log = hourShardReader(client, {
    tableName,
    partitionKey: "PK",
    sortKey: "SK",
    partitionOf: keys.identityEventsOf,
    sortAt: keys.identityEventSortAt,
    shards: keys.identityEventShards,
  });
  return {
    async keep(events) {
      if (events.length === 0) return;
      await batchWriteAll(
        client,
        tableName,
        events.map((event) => {
          const ts = Date.parse(event.time);
          return {
            PutRequest: {
              Item: itemOf(ENTITY.identityEvent, keys.identityEvent(event.subject, ts, event.id, event.sequence), {
                eventId: event.id,
                type: event.type,
                time: event.time,
                ts,
                subject: event.subject,
                data: event.data,
                expiresAt: Math.floor(ts / 1000) + keptDays * 86_400,
              }),
            },
          };
        }),
      );
    },

    async page(filter: IdentityEventFilter, from: number, to: number, before: EventPosition | undefined, limit) {
      const shards = filter.subject === undefined ? undefined : [keys.identityEventShardOf(filter.subject)];
      const page = await log.page(filterExpression(filter), from, to, before, limit, shards);
      return { events: page.items.map(eventOf), ...(page.next && { next: page.next }) };
    },
  };
}
