import { GetCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import type { DeviceAuthorizationRecord, DeviceAuthorizationRepository, DevicePoll } from "../domain/oauth/ports";
import type { StoreDeps } from "./client";
import { putUnlessRefused } from "./conditional-put";
import { isConditionalCheckFailed } from "./errors";
import { countedInHour, HOUR_SECONDS } from "./hourly-count";
import { ENTITY, itemOf, keys } from "./keys";
import { pendingWrite } from "./pending-writes";

// Conditions, named so each write says why it may fail.
/** User codes are random and short: a clash must fail rather than take another device's code. */
const newUserCode = "attribute_not_exists(PK)";
/** A poll with the right secret, not sooner than the interval after the last one (RFC 8628 3.5 slow_down). */
const pollAllowed = "secretHash = :hash AND (attribute_not_exists(polledAt) OR polledAt <= :earliest)";
/** The user answers once, while the code lives. */
const pendingAndAlive = "#status = :pending AND expiresAt > :now";
/** Tokens once per approval: two polls racing cannot both spend it. */
const approved = "#status = :approved";

const toRecord = (item: Record<string, unknown>) => item as unknown as DeviceAuthorizationRecord;

export function createDeviceAuthorizationStore({ client, tableName }: StoreDeps): DeviceAuthorizationRepository {
  return {
    create(record) {
      return putUnlessRefused(client, {
        TableName: tableName,
        Item: itemOf(ENTITY.deviceAuthorization, keys.deviceAuthorization(record.userCode), record),
        ConditionExpression: newUserCode,
      });
    },

    async get(userCode) {
      const { Item } = await client.send(
        new GetCommand({ TableName: tableName, Key: keys.deviceAuthorization(userCode), ConsistentRead: true }),
      );
      return Item ? toRecord(Item) : undefined;
    },

    async poll(userCode, secretHash, now, interval): Promise<DevicePoll> {
      try {
        const { Attributes } = await client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.deviceAuthorization(userCode),
            UpdateExpression: "SET polledAt = :now",
            ConditionExpression: pollAllowed,
            ExpressionAttributeValues: { ":hash": secretHash, ":now": now, ":earliest": now - interval },
            ReturnValues: "ALL_NEW",
            ReturnValuesOnConditionCheckFailure: "ALL_OLD",
          }),
        );
        return { record: toRecord(Attributes as Record<string, unknown>) };
      } catch (error) {
        if (!isConditionalCheckFailed(error)) throw error;
        // The item as it stood comes raw ({S: ...}), as DynamoDB sends it.
        const old = (error as { Item?: Record<string, { S?: string }> }).Item;
        // Unknown, or the wrong secret: nothing to tell apart for the caller.
        return old?.secretHash?.S === secretHash ? { tooSoon: true } : undefined;
      }
    },

    async decide(userCode, answer, now) {
      const approval = answer === "denied" ? {} : { ":approval": answer.approval };
      try {
        await client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.deviceAuthorization(userCode),
            UpdateExpression:
              answer === "denied" ? "SET #status = :answer" : "SET #status = :answer, approval = :approval",
            ConditionExpression: pendingAndAlive,
            ExpressionAttributeNames: { "#status": "status" },
            ExpressionAttributeValues: {
              ":answer": answer === "denied" ? "denied" : "approved",
              ":pending": "pending",
              ":now": now,
              ...approval,
            },
          }),
        );
        return true;
      } catch (error) {
        if (isConditionalCheckFailed(error)) return false;
        throw error;
      }
    },

    async admitTry(address, now, max) {
      const hour = Math.floor(now / HOUR_SECONDS);
      const key = keys.userCodeTries(address, hour);
      try {
        await client.send(new UpdateCommand(countedInHour(tableName, key, ENTITY.userCodeTries, max, hour)));
        return true;
      } catch (error) {
        if (isConditionalCheckFailed(error)) return false;
        throw error;
      }
    },

    redeemItem(userCode) {
      return pendingWrite({
        Update: {
          TableName: tableName,
          Key: keys.deviceAuthorization(userCode),
          UpdateExpression: "SET #status = :used",
          ConditionExpression: approved,
          ExpressionAttributeNames: { "#status": "status" },
          ExpressionAttributeValues: { ":used": "used", ":approved": "approved" },
        },
      });
    },
  };
}
