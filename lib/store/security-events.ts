import { randomBytes } from "node:crypto";
import { PutCommand } from "@aws-sdk/lib-dynamodb";
import type {
  EventFilter,
  EventPage,
  EventPosition,
  EventTally,
  SecurityEventIndex,
  SecurityEventLog,
} from "../domain/audit/ports";
import type { SecurityEvent } from "../domain/audit/security-event";
import type { StoreDeps } from "./client";
import { hourShardReader, type LogFilter, positionOf } from "./hour-shards";
import { ENTITY, gsi1, itemOf, keys } from "./keys";
import { queryPages } from "./paging";
import { pendingWrite } from "./pending-writes";

type Item = Record<string, unknown>;

const eventOf = (item: Item): SecurityEvent => {
  const { sbj, sbjType, ts, type, cId, ip, ua, sid, result, prms } = item;
  return { sbj, ...(sbjType === "its" && { sbjType }), ts, type, cId, ip, ua, sid, result, prms } as SecurityEvent;
};

/** The filter's FilterExpression; `#`-names for every attribute, since `type` and `result` are reserved words. */
function filterExpression(filter: EventFilter): LogFilter {
  const parts: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const equal = (name: string, value: string | undefined) => {
    if (value === undefined) return;
    parts.push(`#${name} = :${name}`);
    names[`#${name}`] = name;
    values[`:${name}`] = value;
  };
  equal("type", filter.type);
  equal("result", filter.result ?? (filter.outcome === "ok" ? "ok" : undefined));
  equal("sbj", filter.sbj);
  equal("cId", filter.cId);
  if (filter.outcome === "refused") {
    parts.push("#outcome <> :ok");
    names["#outcome"] = "result";
    values[":ok"] = "ok";
  }
  return { ...(parts.length > 0 && { expression: parts.join(" AND ") }), names, values };
}

export function createSecurityEventStore(
  { client, tableName }: StoreDeps,
  retentionDays: number,
): SecurityEventLog & SecurityEventIndex {
  // The one place an event item is built: its key, its index projection and its TTL.
  const put = (event: SecurityEvent) => {
    const id = randomBytes(6).toString("base64url");
    const key =
      event.sbjType === "its"
        ? keys.clientSecurityEvent(event.sbj, event.ts, id)
        : keys.securityEvent(event.sbj, event.ts, id);
    return {
      TableName: tableName,
      Item: itemOf(ENTITY.securityEvent, key, {
        ...event,
        ...gsi1.securityEvent(event.sbj, event.ts, id),
        // TTL ends the event's retention; reads filter on ts, so a late deletion is harmless.
        expiresAt: Math.floor(event.ts / 1000) + retentionDays * 86_400,
      }),
    };
  };

  const index = hourShardReader(client, {
    tableName,
    indexName: gsi1.indexName,
    partitionKey: "GSI1PK",
    sortKey: "GSI1SK",
    partitionOf: gsi1.securityEventsOf,
    sortAt: gsi1.securityEventSortAt,
    shards: gsi1.securityEventShards,
  });

  return {
    /** The event as part of a transaction the call writes anyway. */
    putItem: (event: SecurityEvent) => pendingWrite({ Put: put(event) }),

    async record(event: SecurityEvent): Promise<void> {
      await client.send(new PutCommand(put(event)));
    },

    /** Events of [from, to] in ms, newest first: one range query on the sort key, never a scan. */
    async list(sub: string, from: number, to: number, limit: number): Promise<SecurityEvent[]> {
      const found: SecurityEvent[] = [];
      for await (const page of queryPages(client, {
        TableName: tableName,
        KeyConditionExpression: "PK = :pk AND SK BETWEEN :from AND :to",
        ExpressionAttributeValues: {
          ":pk": keys.userPartition(sub),
          ":from": keys.eventSortAt(from),
          // Every SK of ts = to sorts below the next millisecond's prefix.
          ":to": keys.eventSortAt(to + 1),
        },
        ScanIndexForward: false,
        Limit: limit,
      })) {
        for (const item of page) {
          const ts = item.ts as number;
          if (ts >= from && ts <= to) found.push(eventOf(item));
          if (found.length >= limit) return found;
        }
      }
      return found;
    },

    /** Every party's events, a party's alone from its one shard (hour-shards.ts). */
    async page(filter: EventFilter, from: number, to: number, before: EventPosition | undefined, limit: number) {
      const shards = filter.sbj === undefined ? undefined : [gsi1.securityEventShardOf(filter.sbj)];
      const page = await index.page(filterExpression(filter), from, to, before, limit, shards);
      const events = page.items.map((item) => ({ ...eventOf(item), id: positionOf(item.GSI1SK as string).id }));
      return { events, ...(page.next && { next: page.next }) } satisfies EventPage;
    },

    /** Every shard of the hour at once, each paged to its end; only the type, result and limit travel. */
    async tally(hourStart: number, types: readonly string[]): Promise<EventTally[]> {
      const hour = Math.floor(hourStart / gsi1.hourMs);
      const typeValues = Object.fromEntries(types.map((type, i) => [`:t${i}`, type]));
      const counts = new Map<string, EventTally>();
      await Promise.all(
        Array.from({ length: gsi1.securityEventShards }, async (_, shard) => {
          for await (const page of queryPages(client, {
            TableName: tableName,
            IndexName: gsi1.indexName,
            KeyConditionExpression: "GSI1PK = :pk",
            FilterExpression: `#type IN (${Object.keys(typeValues).join(", ")})`,
            ProjectionExpression: "#type, #result, prms.#limit",
            ExpressionAttributeNames: { "#type": "type", "#result": "result", "#limit": "limit" },
            ExpressionAttributeValues: { ":pk": gsi1.securityEventsOf(hour, shard), ...typeValues },
          })) {
            for (const item of page) {
              const type = item.type as string;
              const result = item.result as string;
              const limited = (item.prms as { limit?: string } | undefined)?.limit !== undefined;
              const key = `${type}\n${result}\n${limited}`;
              const entry = counts.get(key) ?? { type, result, limited, count: 0 };
              entry.count += 1;
              counts.set(key, entry);
            }
          }
        }),
      );
      return [...counts.values()];
    },
  };
}
