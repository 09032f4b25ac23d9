import { randomUUID } from "node:crypto";
import { DeleteCommand, GetCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import type { StoredQuestion } from "../domain/security/security-question";
import type { StoreDeps } from "./client";
import { failedConditions, isConditionalCheckFailed } from "./errors";
import { ENTITY, itemOf, keys } from "./keys";
import { transactWrite } from "./transact";

/** Security questions (interface §4.10) and the counter of wrong answers. */
/** `:id` is not in the string set `name` (absent counts as empty). */
const notAmong = (name: string) => `(attribute_not_exists(${name}) OR NOT contains(${name}, :id))`;

/** A string set of the item a failed condition returned (ReturnValuesOnConditionCheckFailure), raw as DynamoDB sends it. */
function stringSetOf(error: unknown, attribute: string): string[] {
  return (error as { Item?: Record<string, { SS?: string[] }> }).Item?.[attribute]?.SS ?? [];
}

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

    /**
     * Takes one of the hour's attempts, named by a new id kept in the counter's set of
     * taken ones: the SDK resends the very same request after a lost answer, and the
     * condition then finds its id already taken instead of taking a second attempt.
     */
    async takeAttempt(sub: string, hour: number, limit: number, expiresAt: number): Promise<string | undefined> {
      const attempt = randomUUID();
      try {
        await client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.securityAnswerFailures(sub, hour),
            UpdateExpression:
              "ADD #count :one, #taken :attempt SET entity = :entity, schemaVersion = :v, expiresAt = :exp",
            // Atomic: concurrent guesses cannot together pass the hour's limit; a resent request takes nothing more.
            ConditionExpression: `(attribute_not_exists(#count) OR #count < :limit) AND ${notAmong("#taken")}`,
            ExpressionAttributeNames: { "#count": "count", "#taken": "taken" },
            ExpressionAttributeValues: {
              ":one": 1,
              ":limit": limit,
              ":attempt": new Set([attempt]),
              ":id": attempt,
              ":entity": ENTITY.securityAnswerFailures,
              ":v": 1,
              ":exp": expiresAt,
            },
            ReturnValuesOnConditionCheckFailure: "ALL_OLD",
          }),
        );
        return attempt;
      } catch (error) {
        if (!isConditionalCheckFailed(error)) throw error;
        // Refused, unless the refusal is our own attempt whose answer was lost.
        return stringSetOf(error, "taken").includes(attempt) ? attempt : undefined;
      }
    },

    async returnAttempt(sub: string, hour: number, attempt: string): Promise<void> {
      await client
        .send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.securityAnswerFailures(sub, hour),
            UpdateExpression: "ADD #count :minusOne, #returned :attempt",
            // Only an attempt that was taken is given back, and only once.
            ConditionExpression: `#count > :zero AND ${notAmong("#returned")}`,
            ExpressionAttributeNames: { "#count": "count", "#returned": "returned" },
            ExpressionAttributeValues: { ":minusOne": -1, ":zero": 0, ":attempt": new Set([attempt]), ":id": attempt },
          }),
        )
        .catch((error: unknown) => {
          if (!isConditionalCheckFailed(error)) throw error;
        });
    },
  };
}
