import type { RecoveryCodeRepository } from "../domain/security/ports";
import type { PendingWrite } from "../domain/unit-of-work";
import { batchGetAll } from "./batch";
import type { StoreDeps } from "./client";
import { ENTITY, itemOf, keys } from "./keys";
import { transactItems } from "./pending-writes";
import { transactUnlessRefused } from "./transact";

/**
 * Recovery codes (interface §4.15a): one item per account holding the set as a map of
 * SHA-256 digests, so a new set replaces the old in one write and a use removes one entry
 * under a condition that only one of two racing uses can meet.
 */
export function createRecoveryCodeStore({ client, tableName }: StoreDeps): RecoveryCodeRepository {
  return {
    /** The profile and the set in one BatchGetItem: whether the account exists costs no round trip of its own. */
    async status(sub) {
      const profile = keys.userProfile(sub);
      const items = await batchGetAll(client, tableName, [profile, keys.recoveryCodes(sub)], {
        expression: "SK, #codes, createdAt",
        names: { "#codes": "codes" },
      });
      const set = items.find((item) => item.SK !== profile.SK);
      return {
        account: items.some((item) => item.SK === profile.SK),
        ...(set && { set: { remaining: Object.keys(set.codes ?? {}).length, createdAt: set.createdAt as number } }),
      };
    },

    replace(sub: string, digests: string[], createdAt: number, event: PendingWrite) {
      const codes = Object.fromEntries(digests.map((digest) => [digest, 1]));
      return transactUnlessRefused(client, [
        // No set for an account that does not exist.
        {
          ConditionCheck: {
            TableName: tableName,
            Key: keys.userProfile(sub),
            ConditionExpression: "attribute_exists(PK)",
          },
        },
        {
          Put: {
            TableName: tableName,
            Item: itemOf(ENTITY.recoveryCodes, keys.recoveryCodes(sub), { codes, createdAt }),
          },
        },
        ...transactItems([event]),
      ]);
    },

    use(sub: string, digest: string, event: PendingWrite) {
      return transactUnlessRefused(client, [
        {
          Update: {
            TableName: tableName,
            Key: keys.recoveryCodes(sub),
            UpdateExpression: "REMOVE #codes.#digest",
            // Two sign-ins with one code: only the first finds it still in the set.
            ConditionExpression: "attribute_exists(#codes.#digest)",
            ExpressionAttributeNames: { "#codes": "codes", "#digest": digest },
          },
        },
        ...transactItems([event]),
      ]);
    },
  };
}
