import { BatchGetCommand, BatchWriteCommand, type DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { StorageUnavailableError } from "../domain/errors";
import type { TableKey } from "./keys";

type Item = Record<string, unknown>;

/** DynamoDB's own ceilings per call. */
const GET_BATCH = 100;
const WRITE_BATCH = 25;
/** Calls in flight at once: enough to hide latency, few enough not to be throttled. */
const CONCURRENCY = 4;
/** Unprocessed keys mean the table is busy; give up after this many rounds (a 503). */
const ROUNDS = 8;

/** DynamoDB kept leaving part of a batch unprocessed: a busy table. */
export class BatchIncompleteError extends StorageUnavailableError {
  constructor() {
    super(undefined, "storage left part of a batch unprocessed");
    this.name = "BatchIncompleteError";
  }
}

function chunks<T>(list: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}

async function withConcurrency<T>(tasks: Array<() => Promise<T>>): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const index = next++;
      results[index] = await tasks[index]();
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, tasks.length) }, worker));
  return results;
}

const pause = (round: number) => new Promise((r) => setTimeout(r, 10 * 2 ** round * Math.random()));

/**
 * Strongly consistent BatchGetItem over any number of keys, retrying what DynamoDB
 * leaves unprocessed. Missing items are simply absent from the answer.
 */
export async function batchGetAll(
  client: DynamoDBDocumentClient,
  tableName: string,
  keys: TableKey[],
  projection?: { expression: string; names: Record<string, string> },
): Promise<Item[]> {
  const unique = [...new Map(keys.map((k) => [`${k.PK}\n${k.SK}`, k])).values()];
  const pages = await withConcurrency(
    chunks(unique, GET_BATCH).map((chunk) => async () => {
      const found: Item[] = [];
      let pending: Item[] | undefined = chunk as unknown as Item[];
      for (let round = 0; pending && pending.length > 0; round++) {
        if (round >= ROUNDS) throw new BatchIncompleteError();
        if (round > 0) await pause(round);
        const answer = await client.send(
          new BatchGetCommand({
            RequestItems: {
              [tableName]: {
                Keys: pending,
                ConsistentRead: true,
                ...(projection && {
                  ProjectionExpression: projection.expression,
                  ExpressionAttributeNames: projection.names,
                }),
              },
            },
          }),
        );
        found.push(...((answer.Responses?.[tableName] ?? []) as Item[]));
        pending = answer.UnprocessedKeys?.[tableName]?.Keys as Item[] | undefined;
      }
      return found;
    }),
  );
  return pages.flat();
}

/**
 * Items one step needs, as keys and what to make of them: so the keys can ride in
 * another step's BatchGetItem (a user-mode call's session check) instead of a read of
 * their own. `read` receives every item that BatchGetItem found, its own among them.
 */
export interface BatchPrefetch<T> {
  keys: TableKey[];
  read(found: Item[]): T;
}

export type WriteRequest = { PutRequest: { Item: Item } } | { DeleteRequest: { Key: TableKey } };

/**
 * BatchWriteItem over any number of unconditional puts and deletes, retrying what
 * DynamoDB leaves unprocessed. Not atomic: for bulk loads and clean-ups whose every
 * step is idempotent.
 */
export async function batchWriteAll(
  client: DynamoDBDocumentClient,
  tableName: string,
  requests: WriteRequest[],
): Promise<number> {
  const sent = await withConcurrency(
    chunks(requests, WRITE_BATCH).map((chunk) => async () => {
      let calls = 0;
      let pending: WriteRequest[] | undefined = chunk;
      for (let round = 0; pending && pending.length > 0; round++) {
        if (round >= ROUNDS) throw new BatchIncompleteError();
        if (round > 0) await pause(round);
        calls++;
        const answer = await client.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending } }));
        pending = answer.UnprocessedItems?.[tableName] as WriteRequest[] | undefined;
      }
      return calls;
    }),
  );
  return sent.reduce((a, b) => a + b, 0);
}
