import {
  type DynamoDBDocumentClient,
  TransactWriteCommand,
  type TransactWriteCommandInput,
} from "@aws-sdk/lib-dynamodb";
import { failedConditions, isTransactionConflict } from "./errors";

// Concurrent logins of one account all touch its profile: enough tries, spread out, for
// a burst of them to pass one after another rather than fail.
const ATTEMPTS = 8;
const MAX_BACKOFF_MS = 400;

/**
 * TransactWriteItems, retried when DynamoDB cancels it only because another
 * transaction touched the same items at that moment (the SDK does not retry that).
 * Conditions are re-evaluated on each attempt, so a retry cannot break an invariant.
 */
export async function transactWrite(
  client: DynamoDBDocumentClient,
  items: NonNullable<TransactWriteCommandInput["TransactItems"]>,
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await client.send(new TransactWriteCommand({ TransactItems: items }));
      return;
    } catch (error) {
      if (attempt >= ATTEMPTS || !isTransactionConflict(error)) throw error;
      // Full jitter: colliding writers must not retry in step.
      await new Promise((r) => setTimeout(r, Math.random() * Math.min(MAX_BACKOFF_MS, 10 * 2 ** attempt)));
    }
  }
}

/** Runs a flow's writes in one transaction; false when a guard refused them (nothing written). */
export async function transactUnlessRefused(
  client: DynamoDBDocumentClient,
  items: NonNullable<TransactWriteCommandInput["TransactItems"]>,
): Promise<boolean> {
  try {
    await transactWrite(client, items);
    return true;
  } catch (error) {
    if (failedConditions(error)?.length) return false;
    throw error;
  }
}
