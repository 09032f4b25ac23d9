import { QueryCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import type { Account, AccountState } from "../domain/accounts/account";
import type { AccountSecurityRepository } from "../domain/accounts/ports";
import { toAccount } from "./account-items";
import type { StoreDeps } from "./client";
import { isConditionalCheckFailed } from "./errors";
import { gsi1, keys } from "./keys";
import { queryAll } from "./paging";
import { buildUpdate } from "./update-expression";

/** Authentication modes (interface §4.12) and account state (interface §3.1) on the profile item. */
export function createAccountSecurityStore({ client, tableName }: StoreDeps): AccountSecurityRepository {
  return {
    /** Whether the account has an authenticator of its own: a TOTP generator or a passkey (two reads at once). */
    async hasSecondFactor(sub: string): Promise<boolean> {
      const any = async (prefix: string) => {
        const { Items } = await client.send(
          new QueryCommand({
            TableName: tableName,
            KeyConditionExpression: "PK = :pk AND begins_with(SK, :prefix)",
            ExpressionAttributeValues: { ":pk": keys.userPartition(sub), ":prefix": prefix },
            ProjectionExpression: "SK",
            ConsistentRead: true,
            Limit: 1,
          }),
        );
        return (Items?.length ?? 0) > 0;
      };
      const found = await Promise.all([any(keys.totpPrefix), any(keys.passkeyPrefix)]);
      return found.some(Boolean);
    },

    /** Sets and removes mode attributes; undefined when the account does not exist. */
    async setModes(
      sub: string,
      set: Partial<Pick<Account, "requiredFactor" | "needPasswordChange" | "methodsLocked">>,
      remove: Array<"requiredFactor" | "needPasswordChange">,
    ): Promise<Account | undefined> {
      const update = buildUpdate(set, remove);
      try {
        const { Attributes } = await client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.userProfile(sub),
            ...update,
            // Modes of an account that does not exist are an unknown user, not a new item.
            ConditionExpression: "attribute_exists(PK)",
            ExpressionAttributeValues: Object.keys(update.ExpressionAttributeValues).length
              ? update.ExpressionAttributeValues
              : undefined,
            ReturnValues: "ALL_NEW",
          }),
        );
        return Attributes && toAccount(Attributes);
      } catch (error) {
        if (isConditionalCheckFailed(error)) return undefined;
        throw error;
      }
    },

    /**
     * Sets the state. An untouchable account without an end leaves the inactivity index;
     * with one (`till`), it becomes a candidate again from then on.
     */
    async setState(sub: string, state: AccountState, candidateFrom: number | undefined): Promise<boolean> {
      const index = candidateFrom === undefined ? undefined : gsi1.inactivity(sub, candidateFrom);
      try {
        await client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.userProfile(sub),
            UpdateExpression: index
              ? "SET #state = :state, GSI1PK = :pk, GSI1SK = :sk"
              : "SET #state = :state REMOVE GSI1PK, GSI1SK",
            ConditionExpression: "attribute_exists(PK)",
            ExpressionAttributeNames: { "#state": "state" },
            ExpressionAttributeValues: { ":state": state, ...(index && { ":pk": index.GSI1PK, ":sk": index.GSI1SK }) },
          }),
        );
        return true;
      } catch (error) {
        if (isConditionalCheckFailed(error)) return false;
        throw error;
      }
    },

    /** Accounts inactive since before `cutoff`, from one shard of the index (no table scan). */
    async inactiveCandidates(shard: number, cutoff: number): Promise<Array<{ sub: string; since: string }>> {
      const items = await queryAll(client, {
        TableName: tableName,
        IndexName: gsi1.indexName,
        KeyConditionExpression: "GSI1PK = :pk AND GSI1SK < :before",
        ExpressionAttributeValues: { ":pk": gsi1.inactivityShard(shard), ":before": gsi1.inactivitySortBefore(cutoff) },
        ProjectionExpression: "#sub, GSI1SK",
        ExpressionAttributeNames: { "#sub": "sub" },
      });
      return items.map((item) => ({ sub: item.sub as string, since: item.GSI1SK as string }));
    },

    /**
     * Locks one candidate. The index is eventually consistent, so the write checks the
     * profile itself: still the activity we saw, and not (any longer) untouchable.
     */
    async lockForInactivity(sub: string, seenSince: string, now: number): Promise<boolean> {
      try {
        await client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.userProfile(sub),
            UpdateExpression: "SET #state = :lock REMOVE GSI1PK, GSI1SK",
            ConditionExpression:
              "GSI1SK = :seen AND (attribute_not_exists(#state) OR #state.#name <> :untouchable OR #state.till < :now)",
            ExpressionAttributeNames: { "#state": "state", "#name": "name" },
            ExpressionAttributeValues: {
              ":lock": { name: "inactivityLock", on: now },
              ":seen": seenSince,
              ":untouchable": "untouchable",
              ":now": now,
            },
          }),
        );
        return true;
      } catch (error) {
        if (isConditionalCheckFailed(error)) return false;
        throw error;
      }
    },
  };
}
