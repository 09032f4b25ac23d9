import { GetCommand, ScanCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import type { ClaimOutcome, PasskeyRepository, StoredPasskey } from "../domain/passkeys/ports";
import { toAccount } from "./account-items";
import { batchGetAll } from "./batch";
import type { StoreDeps } from "./client";
import { failedConditions, isConditionalCheckFailed } from "./errors";
import { ENTITY, itemOf, keys } from "./keys";
import { queryAll } from "./paging";
import { pendingWrite, type TransactItem, transactItems } from "./pending-writes";
import { transactUnlessRefused, transactWrite } from "./transact";

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

/** A transaction item on a credential id's claim (UNIQUE#passkey#...). */
function isPasskeyClaim(item: TransactItem | undefined): boolean {
  const key = item?.Delete?.Key ?? item?.Put?.Item ?? item?.Update?.Key ?? item?.ConditionCheck?.Key;
  return typeof key?.PK === "string" && key.PK.startsWith(keys.uniquePasskeyPrefix);
}

// A claim put can lose a race with the passkey's delete (which takes the claim): read, then try again.
const CLAIM_ATTEMPTS = 3;

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

    removeItems: (sub, id, options = {}) => [
      pendingWrite({
        Delete: {
          TableName: tableName,
          Key: keys.passkey(sub, id),
          // Deleting an unknown passkey is a 404, not a silent success.
          ConditionExpression: "attribute_exists(PK)",
        },
      }),
      ...(options.keepClaim
        ? []
        : [
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
          ]),
    ],

    async commitTelling(writes) {
      const items = transactItems(writes);
      try {
        await transactWrite(client, items);
        return "committed";
      } catch (error) {
        const failed = failedConditions(error);
        if (!failed || failed.length === 0) throw error;
        // The claims' conditions refuse only a claim another account holds.
        return failed.every((index) => isPasskeyClaim(items[index])) ? "claim-of-another" : "refused";
      }
    },

    async *holdingPages() {
      let start: Record<string, unknown> | undefined;
      do {
        // A Scan of the whole table, filtered to passkeys: acceptable for the one-off claim
        // backfill of passkeys stored before claims existed (svc-admin passkeys claim), an
        // operator's command run once per stack; no request path reads this.
        const page = await client.send(
          new ScanCommand({
            TableName: tableName,
            FilterExpression: "entity = :passkey",
            ProjectionExpression: "PK, id",
            ExpressionAttributeValues: { ":passkey": ENTITY.passkey },
            ConsistentRead: true,
            ExclusiveStartKey: start,
          }),
        );
        const userPrefix = keys.userPartition("");
        yield (page.Items ?? []).map((item) => ({
          sub: (item.PK as string).slice(userPrefix.length),
          id: item.id as string,
        }));
        start = page.LastEvaluatedKey;
      } while (start);
    },

    async claim(sub, id): Promise<ClaimOutcome> {
      for (let attempt = 1; ; attempt++) {
        try {
          await transactWrite(client, [
            // No claim for a passkey deleted since the Scan: it would hold its id for nobody.
            {
              ConditionCheck: {
                TableName: tableName,
                Key: keys.passkey(sub, id),
                ConditionExpression: "attribute_exists(PK)",
              },
            },
            {
              Put: {
                TableName: tableName,
                Item: itemOf(ENTITY.uniquePasskey, keys.uniquePasskey(id), { owner: sub }),
                // Never overwrite a claim: whichever account holds it keeps it.
                ConditionExpression: "attribute_not_exists(PK)",
              },
            },
          ]);
          return { result: "written" };
        } catch (error) {
          const failed = failedConditions(error);
          if (!failed || failed.length === 0) throw error;
          if (failed.includes(0)) return { result: "gone" };
        }
        const { Item } = await client.send(
          new GetCommand({ TableName: tableName, Key: keys.uniquePasskey(id), ConsistentRead: true }),
        );
        if (Item) return { result: "held", owner: Item.owner as string };
        // The claim went between the put and the read: its passkey was deleted; try again.
        if (attempt >= CLAIM_ATTEMPTS) throw new Error(`the claim on passkey ${id.slice(0, 8)} keeps changing`);
      }
    },
  };
}
