import { randomBytes } from "node:crypto";
import { PutCommand, QueryCommand, type QueryCommandInput } from "@aws-sdk/lib-dynamodb";
import type {
  EventFilter,
  EventPage,
  EventPosition,
  EventTally,
  ListedEvent,
  SecurityEventIndex,
  SecurityEventLog,
} from "../domain/audit/ports";
import type { SecurityEvent } from "../domain/audit/security-event";
import type { StoreDeps } from "./client";
import { ENTITY, gsi1, itemOf, keys } from "./keys";
import { queryPages } from "./paging";
import { pendingWrite } from "./pending-writes";

/** Hours one page of the cross-account listing walks at most, so an empty stretch costs a bounded number of Queries. */
export const HOURS_PER_PAGE = 6;
/** Items one shard's Query evaluates per call, and calls per shard and hour within one page. */
const EVALUATED_PER_CALL = 200;
const CALLS_PER_SHARD = 2;

type Item = Record<string, unknown>;

const eventOf = (item: Item): SecurityEvent => {
  const { sbj, sbjType, ts, type, cId, ip, ua, sid, result, prms } = item;
  return { sbj, ...(sbjType === "its" && { sbjType }), ts, type, cId, ip, ua, sid, result, prms } as SecurityEvent;
};

/** The event's id is the part of the index's sort key after its time. */
const positionOf = (sortKey: string): EventPosition => {
  const cut = sortKey.indexOf("#");
  return cut < 0 ? { ts: Number(sortKey), id: "" } : { ts: Number(sortKey.slice(0, cut)), id: sortKey.slice(cut + 1) };
};

/** The filter's FilterExpression; `#`-names for every attribute, since `type` and `result` are reserved words. */
function filterExpression(filter: EventFilter): Pick<QueryCommandInput, "FilterExpression"> & {
  names: Record<string, string>;
  values: Record<string, unknown>;
} {
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
  return { ...(parts.length > 0 && { FilterExpression: parts.join(" AND ") }), names, values };
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

  /**
   * One shard's events of one hour below `upper` and from `lower` on, newest first: until it
   * has `wanted` matches, runs out, or has made its calls. `frontier` is set in the last
   * case: every item from it up was evaluated, none below it.
   */
  async function readShard(
    pk: string,
    lower: string,
    upper: string,
    filter: ReturnType<typeof filterExpression>,
    wanted: number,
  ): Promise<{ matches: Item[]; frontier?: string }> {
    const matches: Item[] = [];
    let start: Item | undefined;
    for (let call = 0; call < CALLS_PER_SHARD; call++) {
      const page = await client.send(
        new QueryCommand({
          TableName: tableName,
          IndexName: gsi1.indexName,
          KeyConditionExpression: "GSI1PK = :pk AND GSI1SK BETWEEN :lower AND :upper",
          ...(filter.FilterExpression && { FilterExpression: filter.FilterExpression }),
          ExpressionAttributeNames: Object.keys(filter.names).length > 0 ? filter.names : undefined,
          ExpressionAttributeValues: { ":pk": pk, ":lower": lower, ":upper": upper, ...filter.values },
          ScanIndexForward: false,
          Limit: EVALUATED_PER_CALL,
          ExclusiveStartKey: start,
        }),
      );
      // BETWEEN includes `upper`: the event a cursor names was answered already.
      matches.push(...((page.Items ?? []) as Item[]).filter((item) => (item.GSI1SK as string) < upper));
      start = page.LastEvaluatedKey;
      if (!start || matches.length >= wanted) return { matches };
    }
    return { matches, frontier: start?.GSI1SK as string };
  }

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

    /**
     * Hour by hour from the newest, each hour's shards read at once and merged by their
     * sort key: a shard's first `wanted` matches include every one of its events that
     * belongs in the page, and where a shard stopped early (its calls spent) only what lies
     * above its frontier is known, so the page ends there.
     */
    async page(filter: EventFilter, from: number, to: number, before: EventPosition | undefined, limit: number) {
      const expression = filterExpression(filter);
      const shards =
        filter.sbj === undefined
          ? Array.from({ length: gsi1.securityEventShards }, (_, shard) => shard)
          : [gsi1.securityEventShardOf(filter.sbj)];
      const lower = gsi1.securityEventSortAt(from);
      // Every sort key of ts = to sorts below the next millisecond's.
      const ceiling = gsi1.securityEventSortAt(to + 1);
      const cursor = before && gsi1.securityEventSortAt(before.ts, before.id || undefined);
      let upper = cursor !== undefined && cursor < ceiling ? cursor : ceiling;
      const events: ListedEvent[] = [];
      // A cursor from before the window: nothing older is listed (and BETWEEN needs lower <= upper).
      if (upper <= lower) return { events };
      const last = Math.floor(from / gsi1.hourMs);
      let hour = Math.floor(positionOf(upper).ts / gsi1.hourMs);
      // A bare time as `upper` excludes that millisecond itself.
      if (!upper.includes("#") && positionOf(upper).ts % gsi1.hourMs === 0) hour -= 1;
      for (let walked = 0; hour >= last; hour--, walked++) {
        if (walked === HOURS_PER_PAGE) return { events, next: positionOf(upper) };
        const wanted = limit - events.length;
        const read = await Promise.all(
          shards.map((shard) => readShard(gsi1.securityEventsOf(hour, shard), lower, upper, expression, wanted)),
        );
        const frontiers = read.flatMap((r) => (r.frontier === undefined ? [] : [r.frontier]));
        const frontier = frontiers.sort().at(-1);
        const known = read
          .flatMap((r) => r.matches)
          .filter((item) => frontier === undefined || (item.GSI1SK as string) >= frontier)
          .sort((a, b) => ((a.GSI1SK as string) < (b.GSI1SK as string) ? 1 : -1))
          .slice(0, wanted);
        for (const item of known) events.push({ ...eventOf(item), id: positionOf(item.GSI1SK as string).id });
        if (events.length === limit) {
          const end = events[events.length - 1];
          return { events, next: { ts: end.ts, id: end.id } };
        }
        if (frontier !== undefined) return { events, next: positionOf(frontier) };
        // The next hour holds only events below this hour's first millisecond.
        upper = gsi1.securityEventSortAt(hour * gsi1.hourMs);
      }
      return { events } satisfies EventPage;
    },

    /** Every shard of the hour at once, each paged to its end; only the type and result travel. */
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
            ProjectionExpression: "#type, #result",
            ExpressionAttributeNames: { "#type": "type", "#result": "result" },
            ExpressionAttributeValues: { ":pk": gsi1.securityEventsOf(hour, shard), ...typeValues },
          })) {
            for (const item of page) {
              const type = item.type as string;
              const result = item.result as string;
              const key = `${type}\n${result}`;
              const entry = counts.get(key) ?? { type, result, count: 0 };
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
