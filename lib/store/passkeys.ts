import { UpdateCommand } from "@aws-sdk/lib-dynamodb";
import type { PasskeyRepository, StoredPasskey } from "../domain/passkeys/ports";
import { toAccount } from "./account-items";
import { batchGetAll } from "./batch";
import type { StoreDeps } from "./client";
import { isConditionalCheckFailed } from "./errors";
import { ENTITY, itemOf, keys } from "./keys";
import { queryAll } from "./paging";
import { pendingWrite, transactItems } from "./pending-writes";
import { transactUnlessRefused } from "./transact";

export function toPasskey(item: Record<string, unknown>): StoredPasskey {
  return {
    id: item.id as string,
    publicKey: item.publicKey as string,
    counter: item.counter as number,
    transports: (item.transports as string[] | undefined) ?? [],
    backedUp: item.backedUp as boolean,
    deviceType: item.deviceType as StoredPasskey["deviceType"],
    name: item.name as string,
    createdAt: item.createdAt as number,
    ...(item.lastUsed !== undefined && { lastUsed: item.lastUsed as number }),
    ...(item.aaguid !== undefined && { aaguid: item.aaguid as string }),
  };
}

/** Passkeys in the account's item collection, by credential id. */
export function createPasskeyStore({ client, tableName }: StoreDeps): PasskeyRepository {
  return {
    commit: (writes) => transactUnlessRefused(client, transactItems(writes)),

    async list(sub) {
      const items = await queryAll(client, {
        TableName: tableName,
        KeyConditionExpression: "PK = :pk AND begins_with(SK, :prefix)",
        ExpressionAttributeValues: { ":pk": keys.userPartition(sub), ":prefix": keys.passkeyPrefix },
        ConsistentRead: true,
      });
      return items.map(toPasskey).sort((a, b) => a.createdAt - b.createdAt);
    },

    async accountWithPasskeys(sub) {
      // PASSKEY# sorts just below PROFILE, and no other kind of item sorts between them.
      const items = await queryAll(client, {
        TableName: tableName,
        KeyConditionExpression: "PK = :pk AND SK BETWEEN :from AND :to",
        ExpressionAttributeValues: {
          ":pk": keys.userPartition(sub),
          ":from": keys.passkeyPrefix,
          ":to": keys.userProfile(sub).SK,
        },
        ConsistentRead: true,
      });
      const profile = items.find((item) => item.entity === ENTITY.user);
      if (!profile) return undefined;
      const passkeys = items.filter((item) => item.entity === ENTITY.passkey).map(toPasskey);
      return { account: toAccount(profile), passkeys: passkeys.sort((a, b) => a.createdAt - b.createdAt) };
    },

    async withAccount(sub, id) {
      const profile = keys.userProfile(sub);
      const items = await batchGetAll(client, tableName, [profile, keys.passkey(sub, id)]);
      const account = items.find((item) => item.SK === profile.SK);
      const passkey = items.find((item) => item.SK !== profile.SK);
      return { ...(account && { account: toAccount(account) }), ...(passkey && { passkey: toPasskey(passkey) }) };
    },

    addItems: (sub, passkey) => [
      pendingWrite({
        Put: {
          TableName: tableName,
          Item: itemOf(ENTITY.passkey, keys.passkey(sub, passkey.id), passkey),
          // Never overwrite a passkey's key and counter.
          ConditionExpression: "attribute_not_exists(PK)",
        },
      }),
      pendingWrite({
        Put: {
          TableName: tableName,
          Item: itemOf(ENTITY.uniquePasskey, keys.uniquePasskey(passkey.id), { owner: sub }),
          // A credential id is registered once, to one account: another account's claim refuses it.
          ConditionExpression: "attribute_not_exists(PK)",
        },
      }),
    ],

    takeChallengeItem: (challenge) =>
      pendingWrite({
        Put: {
          TableName: tableName,
          Item: itemOf(ENTITY.passkeyChallenge, keys.passkeyChallenge(challenge.nonce), {
            expiresAt: challenge.expiresAt,
          }),
          // A challenge answers one ceremony: a replayed answer finds it taken.
          ConditionExpression: "attribute_not_exists(PK)",
        },
      }),

    usedItem: (sub, passkey, counter, now) =>
      pendingWrite({
        Update: {
          TableName: tableName,
          Key: keys.passkey(sub, passkey.id),
          UpdateExpression: "SET #counter = :next, lastUsed = :now",
          // From the counter the check read: two uses racing with one counter value, one wins; a deleted passkey, none.
          ConditionExpression: "attribute_exists(PK) AND #counter = :read",
          ExpressionAttributeNames: { "#counter": "counter" },
          ExpressionAttributeValues: { ":next": counter, ":now": now, ":read": passkey.counter },
        },
      }),

    async rename(sub, id, name) {
      try {
        const { Attributes } = await client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.passkey(sub, id),
            UpdateExpression: "SET #name = :name",
            // Renaming an unknown passkey is a 404, not a new item.
            ConditionExpression: "attribute_exists(PK)",
            ExpressionAttributeNames: { "#name": "name" },
            ExpressionAttributeValues: { ":name": name },
            ReturnValues: "ALL_NEW",
          }),
        );
        return Attributes ? toPasskey(Attributes) : undefined;
      } catch (error) {
        if (isConditionalCheckFailed(error)) return undefined;
        throw error;
      }
    },

    removeItems: (sub, id) => [
      pendingWrite({
        Delete: {
          TableName: tableName,
          Key: keys.passkey(sub, id),
          // Deleting an unknown passkey is a 404, not a silent success.
          ConditionExpression: "attribute_exists(PK)",
        },
      }),
      pendingWrite({
        Delete: {
          TableName: tableName,
          Key: keys.uniquePasskey(id),
          // Only this account's claim goes; a passkey stored before claims existed has none.
          ConditionExpression: "attribute_not_exists(PK) OR #owner = :sub",
          ExpressionAttributeNames: { "#owner": "owner" },
          ExpressionAttributeValues: { ":sub": sub },
        },
      }),
    ],
  };
}
