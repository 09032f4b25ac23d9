import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { keys } from "./keys";
import { queryAll } from "./paging";

type Item = Record<string, unknown>;

export interface PartitionRead {
  /** The record item, when asked for and present: tells "no items" from "no such party". */
  record?: Item;
  /** The items under each asked prefix, in sort-key order. */
  byPrefix: Map<string, Item[]>;
}

/** The smallest string greater than every string starting with `prefix`. */
function pastPrefix(prefix: string): string {
  return `${prefix.slice(0, -1)}${String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1)}`;
}

/**
 * Items of one partition under some sort-key prefixes (and the record item that proves
 * the party exists: an account's profile, an application's record) in ONE Query instead
 * of a Query per prefix plus a GetItem: the key range spans the smallest
 * to the largest wanted sort key and the wanted items are picked from it (DynamoDB
 * filters cannot name key attributes). It reads (and pays capacity for) the party's
 * items in between, which are few and small; pages on past 1 MB like any Query.
 * Consistent, so a write just made is seen.
 */
export async function readPartition(
  client: DynamoDBDocumentClient,
  tableName: string,
  pk: string,
  prefixes: string[],
  recordSk?: string,
): Promise<PartitionRead> {
  const records = recordSk === undefined ? [] : [recordSk];
  const lows = [...prefixes, ...records].sort();
  const highs = [...prefixes.map(pastPrefix), ...records].sort();
  const items = await queryAll(client, {
    TableName: tableName,
    KeyConditionExpression: "PK = :pk AND SK BETWEEN :low AND :high",
    ExpressionAttributeValues: { ":pk": pk, ":low": lows[0], ":high": highs.at(-1) },
    ConsistentRead: true,
  });
  const byPrefix = new Map(prefixes.map((prefix) => [prefix, [] as Item[]]));
  let record: Item | undefined;
  // The range holds other kinds of the account's items too; only the asked ones count.
  for (const item of items) {
    const sk = item.SK as string;
    if (sk === recordSk) record = item;
    const prefix = prefixes.find((p) => sk.startsWith(p));
    if (prefix) byPrefix.get(prefix)?.push(item);
  }
  return { record, byPrefix };
}

/** An account's items under some prefixes and, when asked, its profile: one Query. */
export function readUserPartition(
  client: DynamoDBDocumentClient,
  tableName: string,
  sub: string,
  prefixes: string[],
  withProfile: boolean,
): Promise<PartitionRead> {
  const profile = keys.userProfile(sub);
  return readPartition(client, tableName, profile.PK, prefixes, withProfile ? profile.SK : undefined);
}
