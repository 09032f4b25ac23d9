import { PutCommand } from "@aws-sdk/lib-dynamodb";
import type { RegistrationAdmissions } from "../domain/clients/ports";
import type { StoreDeps } from "./client";
import { countedInHour, HOUR_SECONDS } from "./hourly-count";
import { ENTITY, itemOf, keys } from "./keys";
import { pendingWrite } from "./pending-writes";

/**
 * What lets a client register itself (RFC 7591): an operator's initial access token, used up
 * one registration at a time, or an address's hourly allowance. Each is a write with a
 * condition in the registration's own transaction, so racing registrations cannot overspend.
 */
export function createRegistrationAdmissionStore({ client, tableName }: StoreDeps): RegistrationAdmissions {
  return {
    async issueInitialToken(digest, uses, expiresAt, now) {
      await client.send(
        new PutCommand({
          TableName: tableName,
          Item: itemOf(ENTITY.initialAccessToken, keys.initialAccessToken(digest), {
            remaining: uses,
            uses,
            createdAt: now,
            expiresAt,
          }),
        }),
      );
    },

    useInitialToken(digest, now) {
      return pendingWrite({
        Update: {
          TableName: tableName,
          Key: keys.initialAccessToken(digest),
          UpdateExpression: "SET remaining = remaining - :one",
          // Known, uses left, and not past its time (DynamoDB's TTL deletes it only later).
          ConditionExpression: "attribute_exists(PK) AND remaining > :zero AND expiresAt > :now",
          ExpressionAttributeValues: { ":one": 1, ":zero": 0, ":now": now },
        },
      });
    },

    countFromAddress(address, max, now) {
      const hour = Math.floor(now / HOUR_SECONDS);
      const key = keys.clientRegistrationsFromAddress(address, hour);
      return pendingWrite({ Update: countedInHour(tableName, key, ENTITY.clientRegistrationsFromAddress, max, hour) });
    },
  };
}
