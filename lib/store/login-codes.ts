import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import type { LoginCodeRecord, LoginCodeRepository } from "../domain/security/ports";
import type { StoreDeps } from "./accounts";
import { isConditionalCheckFailed } from "./errors";
import { ENTITY, itemOf, keys } from "./keys";

// Conditions, named so each write says why it may fail.
/** The code judged is the one stored now, not one a newer send replaced. */
const sameCode = "digest = :digest";
/** No code is accepted, right or wrong, once its attempts are spent. */
const attemptsRemain = "attemptsLeft > :zero";
/** An expired code is never accepted, even before TTL removes the item. */
const notExpired = "#exp >= :now";

/** Answers false instead of throwing when the write's condition refused it. */
async function conditional(write: () => Promise<unknown>): Promise<boolean> {
  try {
    await write();
    return true;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return false;
    throw error;
  }
}

/** One-time sign-in codes sent by e-mail or SMS (docs/sign-in.md): the latest per account. */
export function createLoginCodeStore({ client, tableName }: StoreDeps): LoginCodeRepository {
  return {
    async get(sub) {
      const { Item } = await client.send(
        new GetCommand({ TableName: tableName, Key: keys.loginCode(sub), ConsistentRead: true }),
      );
      if (!Item) return undefined;
      const { channel, salt, digest, exp, attemptsLeft } = Item;
      return { channel, salt, digest, exp, attemptsLeft };
    },

    async put(sub: string, record: LoginCodeRecord) {
      await client.send(
        new PutCommand({
          TableName: tableName,
          Item: itemOf(ENTITY.loginCode, keys.loginCode(sub), { ...record, expiresAt: record.exp }),
        }),
      );
    },

    recordWrongCode: (sub: string, digest: string) =>
      conditional(() =>
        client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.loginCode(sub),
            UpdateExpression: "SET attemptsLeft = attemptsLeft - :one",
            ConditionExpression: `${sameCode} AND ${attemptsRemain}`,
            ExpressionAttributeValues: { ":one": 1, ":zero": 0, ":digest": digest },
          }),
        ),
      ),

    consume: (sub: string, digest: string, now: number) =>
      conditional(() =>
        client.send(
          new DeleteCommand({
            TableName: tableName,
            Key: keys.loginCode(sub),
            // Two sign-ins with one code: only the first deletes it.
            ConditionExpression: `${sameCode} AND ${attemptsRemain} AND ${notExpired}`,
            ExpressionAttributeNames: { "#exp": "exp" },
            ExpressionAttributeValues: { ":digest": digest, ":zero": 0, ":now": now },
          }),
        ),
      ),
  };
}
