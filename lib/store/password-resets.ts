import { GetCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import type { PasswordResetRecord, PasswordResetRepository } from "../domain/passwords/ports";
import type { PendingWrite } from "../domain/unit-of-work";
import type { StoreDeps } from "./accounts";
import { isConditionalCheckFailed } from "./errors";
import { ENTITY, itemOf, keys, SCHEMA_VERSION } from "./keys";
import { pendingWrite, transactItems } from "./pending-writes";
import { transactUnlessRefused } from "./transact";

// Conditions, named so each write says why it may fail.
/** The hourly cap on codes sent to one account: the form cannot be used to flood a mailbox or phone. */
const underHourlyCap = "attribute_not_exists(#count) OR #count < :max";
/** The code judged is the one stored now, not one a newer request replaced. */
const sameCode = "digest = :digest";
/** No code is accepted, right or wrong, once its attempts are spent. */
const attemptsRemain = "attemptsLeft > :zero";
/** An expired code is never accepted, even before TTL removes the item. */
const notExpired = "#exp >= :now";

const HOUR_SECONDS = 3600;

export function createPasswordResetStore({ client, tableName }: StoreDeps): PasswordResetRepository {
  return {
    async get(sub: string): Promise<PasswordResetRecord | undefined> {
      const { Item } = await client.send(
        new GetCommand({ TableName: tableName, Key: keys.passwordReset(sub), ConsistentRead: true }),
      );
      if (!Item) return undefined;
      const { sub: owner, field, salt, digest, exp, attemptsLeft, createdAt } = Item;
      return { sub: owner, field, salt, digest, exp, attemptsLeft, createdAt };
    },

    sendCountedItem(sub: string, hour: number, max: number): PendingWrite {
      return pendingWrite({
        Update: {
          TableName: tableName,
          Key: keys.passwordResetsSent(sub, hour),
          UpdateExpression: "SET entity = :entity, schemaVersion = :v, expiresAt = :expires ADD #count :one",
          ConditionExpression: underHourlyCap,
          ExpressionAttributeNames: { "#count": "count" },
          ExpressionAttributeValues: {
            ":entity": ENTITY.passwordResetsSent,
            ":v": SCHEMA_VERSION,
            ":expires": (hour + 1) * HOUR_SECONDS,
            ":one": 1,
            ":max": max,
          },
        },
      });
    },

    putItem(record: PasswordResetRecord): PendingWrite {
      return pendingWrite({
        Put: {
          TableName: tableName,
          Item: itemOf(ENTITY.passwordReset, keys.passwordReset(record.sub), { ...record, expiresAt: record.exp }),
        },
      });
    },

    async recordWrongCode(sub: string, digest: string): Promise<boolean> {
      try {
        await client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.passwordReset(sub),
            UpdateExpression: "SET attemptsLeft = attemptsLeft - :one",
            ConditionExpression: `${sameCode} AND ${attemptsRemain}`,
            ExpressionAttributeValues: { ":one": 1, ":zero": 0, ":digest": digest },
          }),
        );
        return true;
      } catch (error) {
        if (isConditionalCheckFailed(error)) return false;
        throw error;
      }
    },

    consumeItem(sub: string, digest: string, now: number): PendingWrite {
      return pendingWrite({
        Delete: {
          TableName: tableName,
          Key: keys.passwordReset(sub),
          ConditionExpression: `${sameCode} AND ${attemptsRemain} AND ${notExpired}`,
          ExpressionAttributeNames: { "#exp": "exp" },
          ExpressionAttributeValues: { ":digest": digest, ":zero": 0, ":now": now },
        },
      });
    },

    commit: (writes: PendingWrite[]): Promise<boolean> => transactUnlessRefused(client, transactItems(writes)),
  };
}
