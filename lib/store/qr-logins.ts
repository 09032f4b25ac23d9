import { GetCommand, PutCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import type { QrLoginRecord, QrLoginRepository } from "../domain/login/ports";
import type { PendingWrite } from "../domain/unit-of-work";
import type { StoreDeps } from "./client";
import { isConditionalCheckFailed } from "./errors";
import { ENTITY, itemOf, keys } from "./keys";
import { pendingWrite } from "./pending-writes";

// Conditions, named so each write says why it may fail.
/** A decision is taken once, while the code is pending and alive. */
const pendingAndAlive = "#status = :pending AND expiresAt > :now";
/** Tokens come once, to the starting application, for a confirmed and live code. */
const redeemable = "#status = :confirmed AND clientId = :client AND expiresAt > :now";

export function createQrLoginStore({ client, tableName }: StoreDeps): QrLoginRepository {
  return {
    async create(record: QrLoginRecord): Promise<void> {
      await client.send(
        new PutCommand({
          TableName: tableName,
          Item: itemOf(ENTITY.qrLogin, keys.qrLogin(record.code), record),
          // Codes are random; a collision must fail rather than replace another login.
          ConditionExpression: "attribute_not_exists(PK)",
        }),
      );
    },

    async get(code: string, now: number): Promise<QrLoginRecord | undefined> {
      const { Item } = await client.send(
        new GetCommand({ TableName: tableName, Key: keys.qrLogin(code), ConsistentRead: true }),
      );
      return Item && (Item.expiresAt as number) > now ? (Item as QrLoginRecord) : undefined;
    },

    /** Confirms (for `sub`) or refuses a pending code; false when it was not pending and alive. */
    async decide(code: string, decision: "confirmed" | "refused", sub: string, now: number): Promise<boolean> {
      try {
        await client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.qrLogin(code),
            UpdateExpression: "SET #status = :decision, #sub = :sub",
            ConditionExpression: pendingAndAlive,
            ExpressionAttributeNames: { "#status": "status", "#sub": "sub" },
            ExpressionAttributeValues: { ":decision": decision, ":sub": sub, ":pending": "pending", ":now": now },
          }),
        );
        return true;
      } catch (error) {
        if (isConditionalCheckFailed(error)) return false;
        throw error;
      }
    },

    /** Marks a confirmed code used, in the transaction that signs the user in. */
    redeemItem(code: string, clientId: string, now: number): PendingWrite {
      return pendingWrite({
        Update: {
          TableName: tableName,
          Key: keys.qrLogin(code),
          UpdateExpression: "SET #status = :used",
          ConditionExpression: redeemable,
          ExpressionAttributeNames: { "#status": "status" },
          ExpressionAttributeValues: { ":used": "used", ":confirmed": "confirmed", ":client": clientId, ":now": now },
        },
      });
    },
  };
}
