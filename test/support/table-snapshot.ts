import { ScanCommand } from "@aws-sdk/lib-dynamodb";
import { expect } from "vitest";
import { config } from "../../lib/config";
import { documentClient } from "../../lib/document-client";
import { ENTITY } from "../../lib/store/keys";

/**
 * Items a refused request may write by design: the security event it records (interface §6),
 * the brute-force counters that make refusals count (failed logins by account and by
 * address, wrong security answers, user codes tried on the device page) and the counts of
 * contact-change codes, taken before a send that may fail after the message went out.
 * Everything else must be as it was.
 */
export const WRITTEN_BY_REFUSALS: ReadonlySet<string> = new Set([
  ENTITY.securityEvent,
  ENTITY.loginFailures,
  ENTITY.ipFailures,
  ENTITY.securityAnswerFailures,
  ENTITY.userCodeTries,
  ENTITY.contactCodesSent,
  ENTITY.contactAddressCodesSent,
  ENTITY.contactAddressLastCode,
]);

/** The same value with object keys in order at every level, so equal items print alike. */
function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value instanceof Set) return [...value].map(sortedKeys).sort();
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([k, v]) => [k, sortedKeys(v)]),
  );
}

/** Every item of the test file's table (a full, strongly consistent Scan), by key, without those. */
export async function tableSnapshot(): Promise<Map<string, string>> {
  const items = new Map<string, string>();
  let start: Record<string, unknown> | undefined;
  do {
    const page = await documentClient().send(
      new ScanCommand({ TableName: config().tableName, ConsistentRead: true, ExclusiveStartKey: start }),
    );
    for (const item of page.Items ?? []) {
      if (WRITTEN_BY_REFUSALS.has(String(item.entity))) continue;
      items.set(`${item.PK} ${item.SK}`, JSON.stringify(sortedKeys(item)));
    }
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
}

/** The table after a refused write holds exactly what it held before. */
export function expectNothingStored(before: Map<string, string>, after: Map<string, string>, label: string): void {
  const changed = [...new Set([...before.keys(), ...after.keys()])].filter((key) => before.get(key) !== after.get(key));
  expect(
    changed.map((key) => `${key}: ${before.get(key) ?? "(none)"} -> ${after.get(key) ?? "(none)"}`),
    label,
  ).toEqual([]);
}
