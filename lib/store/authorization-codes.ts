import { GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import type { AuthorizationCodeRecord, AuthorizationCodeRepository } from "../domain/oidc/ports";
import type { PendingWrite } from "../domain/unit-of-work";
import type { StoreDeps } from "./client";
import { ENTITY, itemOf, keys } from "./keys";
import { pendingWrite } from "./pending-writes";

// Conditions, named so each write says why it may fail.
/** Codes are random; a collision must fail rather than replace another user's code. */
const newCode = "attribute_not_exists(PK)";
/** A code is exchanged once, before it expires: two exchanges racing cannot both win. */
const issuedAndAlive = "#status = :issued AND expiresAt > :now";

export function createAuthorizationCodeStore({ client, tableName }: StoreDeps): AuthorizationCodeRepository {
  return {
    async create(record: AuthorizationCodeRecord): Promise<void> {
      await client.send(
        new PutCommand({
          TableName: tableName,
          Item: itemOf(ENTITY.authorizationCode, keys.authorizationCode(record.codeHash), record),
          ConditionExpression: newCode,
        }),
      );
    },

    async get(codeHash: string): Promise<AuthorizationCodeRecord | undefined> {
      const { Item } = await client.send(
        new GetCommand({ TableName: tableName, Key: keys.authorizationCode(codeHash), ConsistentRead: true }),
      );
      return Item as AuthorizationCodeRecord | undefined;
    },

    redeemItem(codeHash: string, sid: string, now: number): PendingWrite {
      return pendingWrite({
        Update: {
          TableName: tableName,
          Key: keys.authorizationCode(codeHash),
          UpdateExpression: "SET #status = :used, sid = :sid",
          ConditionExpression: issuedAndAlive,
          ExpressionAttributeNames: { "#status": "status" },
          ExpressionAttributeValues: { ":used": "used", ":issued": "issued", ":sid": sid, ":now": now },
        },
      });
    },
  };
}
