import {
  type DynamoDBDocumentClient,
  TransactWriteCommand,
  type TransactWriteCommandInput,
} from "@aws-sdk/lib-dynamodb";
import { failedConditions } from "./errors";

const ATTEMPTS = 4;

export function isTransactionConflict(error: unknown): boolean {
  if ((error as { name?: string })?.name !== "TransactionCanceledException") return false;
  const reasons = (error as { CancellationReasons?: Array<{ Code?: string }> }).CancellationReasons ?? [];
  // Only a clash with another transaction in flight: a failed condition is an answer, not a race.
  return (
    reasons.some((r) => r.Code === "TransactionConflict") && !reasons.some((r) => r.Code === "ConditionalCheckFailed")
  );
}

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
      await new Promise((r) => setTimeout(r, 10 * 2 ** attempt * Math.random()));
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
