import { type DynamoDBDocumentClient, QueryCommand } from "@aws-sdk/lib-dynamodb";
import type { EventPosition } from "../domain/audit/ports";

/**
 * A time-ordered log spread over partitions by hour and shard (security events through GSI1,
 * identity events in the table itself): pages of it newest first across every shard, never
 * a scan. Sort keys are `<15-digit ms>#<id>`.
 */

/** Hours one page walks at most, so an empty stretch costs a bounded number of Queries. */
export const HOURS_PER_PAGE = 6;
/** Items one shard's Query evaluates per call, and calls per shard and hour within one page. */
const EVALUATED_PER_CALL = 200;
const CALLS_PER_SHARD = 2;

export const HOUR_MS = 3_600_000;

type Item = Record<string, unknown>;

export interface HourShardLog {
  tableName: string;
  /** The index the log lives in; none: the table's own keys. */
  indexName?: string;
  partitionKey: string;
  sortKey: string;
  partitionOf(hour: number, shard: number): string;
  /** Below every entry of `tsMs` or later; with an id, the position of that one entry. */
  sortAt(tsMs: number, id?: string): string;
  shards: number;
}

/** A page's FilterExpression with its `#`-names and `:`-values. */
export interface LogFilter {
  expression?: string;
  names: Record<string, string>;
  values: Record<string, unknown>;
}

/** The entry's id is the part of the sort key after its time. */
export const positionOf = (sortKey: string): EventPosition => {
  const cut = sortKey.indexOf("#");
  return cut < 0 ? { ts: Number(sortKey), id: "" } : { ts: Number(sortKey.slice(0, cut)), id: sortKey.slice(cut + 1) };
};

export function hourShardReader(client: DynamoDBDocumentClient, log: HourShardLog) {
  const sortOf = (item: Item) => item[log.sortKey] as string;

  /**
   * One shard's entries of one hour below `upper` and from `lower` on, newest first: until it
   * has `wanted` matches, runs out, or has made its calls. `frontier` is set in the last
   * case: every item from it up was evaluated, none below it.
   */
  async function readShard(
    pk: string,
    lower: string,
    upper: string,
    filter: LogFilter,
    wanted: number,
  ): Promise<{ matches: Item[]; frontier?: string }> {
    const matches: Item[] = [];
    let start: Item | undefined;
    for (let call = 0; call < CALLS_PER_SHARD; call++) {
      const page = await client.send(
        new QueryCommand({
          TableName: log.tableName,
          IndexName: log.indexName,
          KeyConditionExpression: "#pk = :pk AND #sk BETWEEN :lower AND :upper",
          ...(filter.expression && { FilterExpression: filter.expression }),
          ExpressionAttributeNames: { "#pk": log.partitionKey, "#sk": log.sortKey, ...filter.names },
          ExpressionAttributeValues: { ":pk": pk, ":lower": lower, ":upper": upper, ...filter.values },
          ScanIndexForward: false,
          Limit: EVALUATED_PER_CALL,
          ExclusiveStartKey: start,
        }),
      );
      // BETWEEN includes `upper`: the entry a cursor names was answered already.
      matches.push(...((page.Items ?? []) as Item[]).filter((item) => sortOf(item) < upper));
      start = page.LastEvaluatedKey;
      if (!start || matches.length >= wanted) return { matches };
    }
    return { matches, frontier: start?.[log.sortKey] as string };
  }

  return {
    /**
     * Entries of [from, to] in ms that `filter` keeps, newest first, older than `before`, at
     * most `limit`, from `shards` (every one by default). Hour by hour from the newest, each
     * hour's shards read at once and merged by their sort key: a shard's first `wanted`
     * matches include every one of its entries that belongs in the page, and where a shard
     * stopped early (its calls spent) only what lies above its frontier is known, so the
     * page ends there.
     */
    async page(
      filter: LogFilter,
      from: number,
      to: number,
      before: EventPosition | undefined,
      limit: number,
      shards: number[] = Array.from({ length: log.shards }, (_, shard) => shard),
    ): Promise<{ items: Item[]; next?: EventPosition }> {
      const lower = log.sortAt(from);
      // Every sort key of ts = to sorts below the next millisecond's.
      const ceiling = log.sortAt(to + 1);
      const cursor = before && log.sortAt(before.ts, before.id || undefined);
      let upper = cursor !== undefined && cursor < ceiling ? cursor : ceiling;
      const items: Item[] = [];
      // A cursor from before the window: nothing older is listed (and BETWEEN needs lower <= upper).
      if (upper <= lower) return { items };
      const last = Math.floor(from / HOUR_MS);
      let hour = Math.floor(positionOf(upper).ts / HOUR_MS);
      // A bare time as `upper` excludes that millisecond itself.
      if (!upper.includes("#") && positionOf(upper).ts % HOUR_MS === 0) hour -= 1;
      for (let walked = 0; hour >= last; hour--, walked++) {
        if (walked === HOURS_PER_PAGE) return { items, next: positionOf(upper) };
        const wanted = limit - items.length;
        const read = await Promise.all(
          shards.map((shard) => readShard(log.partitionOf(hour, shard), lower, upper, filter, wanted)),
        );
        const frontiers = read.flatMap((r) => (r.frontier === undefined ? [] : [r.frontier]));
        const frontier = frontiers.sort().at(-1);
        const known = read
          .flatMap((r) => r.matches)
          .filter((item) => frontier === undefined || sortOf(item) >= frontier)
          .sort((a, b) => (sortOf(a) < sortOf(b) ? 1 : -1))
          .slice(0, wanted);
        items.push(...known);
        if (items.length === limit) return { items, next: positionOf(sortOf(items[items.length - 1])) };
        if (frontier !== undefined) return { items, next: positionOf(frontier) };
        // The next hour holds only entries below this hour's first millisecond.
        upper = log.sortAt(hour * HOUR_MS);
      }
      return { items };
    },
  };
}
