import { DeleteCommand } from "@aws-sdk/lib-dynamodb";
import type { PushedAuthorizationRepository } from "../domain/oauth/ports";
import type { StoreDeps } from "./client";
import { putUnlessRefused } from "./conditional-put";
import { isConditionalCheckFailed } from "./errors";
import { ENTITY, itemOf, keys } from "./keys";

// Conditions, named so each write says why it may fail.
/** References are random: a clash must fail rather than replace another client's request. */
const newReference = "attribute_not_exists(PK)";
/** Taken once, by the client that pushed it, before it expires (DynamoDB's TTL deletes it only later). */
const ownAndAlive = "clientId = :clientId AND expiresAt > :now";

export function createPushedAuthorizationStore({ client, tableName }: StoreDeps): PushedAuthorizationRepository {
  return {
    create(record) {
      return putUnlessRefused(client, {
        TableName: tableName,
        Item: itemOf(ENTITY.pushedAuthorization, keys.pushedAuthorization(record.reference), record),
        ConditionExpression: newReference,
      });
    },

    async take(reference, clientId, now) {
      try {
        // One conditional delete that answers the item: two browsers racing get it once.
        const { Attributes } = await client.send(
          new DeleteCommand({
            TableName: tableName,
            Key: keys.pushedAuthorization(reference),
            ConditionExpression: ownAndAlive,
            ExpressionAttributeValues: { ":clientId": clientId, ":now": now },
            ReturnValues: "ALL_OLD",
          }),
        );
        return Attributes?.params as Record<string, string> | undefined;
      } catch (error) {
        if (isConditionalCheckFailed(error)) return undefined;
        throw error;
      }
    },
  };
}
