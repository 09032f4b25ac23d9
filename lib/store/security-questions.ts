import { DeleteCommand, GetCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import type { StoredQuestion } from "../domain/security/security-question";
import type { StoreDeps } from "./accounts";
import { failedConditions, isConditionalCheckFailed } from "./errors";
import { ENTITY, itemOf, keys } from "./keys";
import { transactWrite } from "./transact";

/** Security questions (SPEC 4.10) and the counter of wrong answers. */
export function createSecurityQuestionStore({ client, tableName }: StoreDeps) {
  return {
    async get(sub: string): Promise<StoredQuestion | undefined> {
      const { Item } = await client.send(
        new GetCommand({ TableName: tableName, Key: keys.securityQuestion(sub), ConsistentRead: true }),
      );
      return Item && { question: Item.question as string, answer: Item.answer as StoredQuestion["answer"] };
    },

    /** Sets or replaces; false when the account does not exist. */
    async put(sub: string, stored: StoredQuestion, now: number): Promise<boolean> {
      try {
        await transactWrite(client, [
          {
            ConditionCheck: {
              TableName: tableName,
              Key: keys.userProfile(sub),
              // A question for an account that does not exist would be an orphan.
              ConditionExpression: "attribute_exists(PK)",
            },
          },
          {
            Put: {
              TableName: tableName,
              Item: itemOf(ENTITY.securityQuestion, keys.securityQuestion(sub), { ...stored, updatedAt: now }),
            },
          },
        ]);
        return true;
      } catch (error) {
        if (failedConditions(error)?.length) return false;
        throw error;
      }
    },

    async remove(sub: string): Promise<void> {
      await client.send(new DeleteCommand({ TableName: tableName, Key: keys.securityQuestion(sub) }));
    },

    async takeAttempt(sub: string, hour: number, limit: number, expiresAt: number): Promise<boolean> {
      try {
        await client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.securityAnswerFailures(sub, hour),
            UpdateExpression: "ADD #count :one SET entity = :entity, schemaVersion = :v, expiresAt = :exp",
            // Atomic: concurrent guesses cannot together pass the hour's limit.
            ConditionExpression: "attribute_not_exists(#count) OR #count < :limit",
            ExpressionAttributeNames: { "#count": "count" },
            ExpressionAttributeValues: {
              ":one": 1,
              ":limit": limit,
              ":entity": ENTITY.securityAnswerFailures,
              ":v": 1,
              ":exp": expiresAt,
            },
          }),
        );
        return true;
      } catch (error) {
        if (isConditionalCheckFailed(error)) return false;
        throw error;
      }
    },

    async returnAttempt(sub: string, hour: number): Promise<void> {
      await client
        .send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.securityAnswerFailures(sub, hour),
            UpdateExpression: "ADD #count :minusOne",
            // Only an attempt that was taken is given back.
            ConditionExpression: "#count > :zero",
            ExpressionAttributeNames: { "#count": "count" },
            ExpressionAttributeValues: { ":minusOne": -1, ":zero": 0 },
          }),
        )
        .catch((error: unknown) => {
          if (!isConditionalCheckFailed(error)) throw error;
        });
    },
  };
}
