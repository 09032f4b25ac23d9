import type { TableKey } from "./keys";

// Conditions on a stored one-time code (password reset, sign-in code), named so each write says why it may fail.
/** The code judged is the one stored now, not one a newer send replaced. */
const sameCode = "digest = :digest";
/** No code is accepted, right or wrong, once its attempts are spent. */
const attemptsRemain = "attemptsLeft > :zero";
/** An expired code is never accepted, even before TTL removes the item. */
const notExpired = "#exp >= :now";

/** Spends one attempt of this very code (an UpdateItem's input). */
export function spendAttempt(tableName: string, key: TableKey, digest: string) {
  return {
    TableName: tableName,
    Key: key,
    UpdateExpression: "SET attemptsLeft = attemptsLeft - :one",
    ConditionExpression: `${sameCode} AND ${attemptsRemain}`,
    ExpressionAttributeValues: { ":one": 1, ":zero": 0, ":digest": digest },
  };
}

/** Removes this very code, unexpired, with attempts left (a DeleteItem's input): two uses, one wins. */
export function consumeCode(tableName: string, key: TableKey, digest: string, now: number) {
  return {
    TableName: tableName,
    Key: key,
    ConditionExpression: `${sameCode} AND ${attemptsRemain} AND ${notExpired}`,
    ExpressionAttributeNames: { "#exp": "exp" },
    ExpressionAttributeValues: { ":digest": digest, ":zero": 0, ":now": now },
  };
}
