import {
  type DynamoDBDocumentClient,
  TransactWriteCommand,
  type TransactWriteCommandInput,
} from "@aws-sdk/lib-dynamodb";
import { batchWriteAll, type WriteRequest } from "./batch";
import { failedConditions, isTransactionConflict, storageError } from "./errors";
import type { TableKey } from "./keys";

type TransactItems = NonNullable<TransactWriteCommandInput["TransactItems"]>;

/** DynamoDB's TransactWriteItems limit. */
const MAX_TRANSACTION_ITEMS = 100;
/** BatchWriteItem's limit. */
const WRITE_BATCH_ITEMS = 25;

// Concurrent logins of one account all touch its profile: enough tries, spread out, for
// a burst of them to pass one after another rather than fail.
const ATTEMPTS = 8;
const MAX_BACKOFF_MS = 400;

/**
 * TransactWriteItems, retried when DynamoDB cancels it only because another
 * transaction touched the same items at that moment (the SDK does not retry that).
 * Conditions are re-evaluated on each attempt, so a retry cannot break an invariant.
 */
export async function transactWrite(client: DynamoDBDocumentClient, items: TransactItems): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await client.send(new TransactWriteCommand({ TransactItems: items }));
      return;
    } catch (error) {
      if (!isTransactionConflict(error)) throw error;
      if (attempt >= ATTEMPTS) throw storageError(error);
      // Full jitter: colliding writers must not retry in step.
      await new Promise((r) => setTimeout(r, Math.random() * Math.min(MAX_BACKOFF_MS, 10 * 2 ** attempt)));
    }
  }
}

/** Runs a flow's writes in one transaction; false when a guard refused them (nothing written). */
export async function transactUnlessRefused(client: DynamoDBDocumentClient, items: TransactItems): Promise<boolean> {
  try {
    await transactWrite(client, items);
    return true;
  } catch (error) {
    if (failedConditions(error)?.length) return false;
    throw error;
  }
}

/**
 * Ends a clean-up: idempotent deletes and the writes that finish the job (`finishing`,
 * which may carry conditions). Where they fit, one transaction, so the clean-up costs
 * one write; otherwise the deletes in batches first, then `finishing` in a transaction
 * (a retry after a partial failure deletes what is left and finishes). With nothing to
 * finish and one batch's worth of deletes, one batch, cheaper than a transaction.
 */
export async function deleteAndFinish(
  client: DynamoDBDocumentClient,
  tableName: string,
  deletes: TableKey[],
  finishing: TransactItems,
): Promise<void> {
  // One transaction may not name an item twice; the same key twice is one delete.
  const unique = [...new Map(deletes.map((Key) => [`${Key.PK}\n${Key.SK}`, Key])).values()];
  // One call either way: a transaction when there is something to finish or more than one
  // batch of deletes (a password change ending 30 sessions), else the cheaper batch.
  const oneBatch = finishing.length === 0 && unique.length <= WRITE_BATCH_ITEMS;
  if (!oneBatch && unique.length + finishing.length <= MAX_TRANSACTION_ITEMS) {
    await transactWrite(client, [...unique.map((Key) => ({ Delete: { TableName: tableName, Key } })), ...finishing]);
    return;
  }
  await batchWriteAll(
    client,
    tableName,
    unique.map((Key): WriteRequest => ({ DeleteRequest: { Key } })),
  );
  if (finishing.length > 0) await transactWrite(client, finishing);
}
