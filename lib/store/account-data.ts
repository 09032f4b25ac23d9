import { GetCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { NAME_ATTRIBUTES } from "../domain/accounts/account";
import type { AccountData, AccountDataRepository, DeletionOutcome } from "../domain/accounts/data-ports";
import type { Properties } from "../domain/accounts/properties";
import type { SecurityEvent } from "../domain/audit/security-event";
import type { DeviceRecord } from "../domain/devices/device";
import { partyOfKey } from "../domain/rights/parties";
import type { SessionRecord } from "../domain/sessions/ports";
import type { PendingWrite } from "../domain/unit-of-work";
import { nameIndexDelete, toAccount } from "./account-items";
import { batchGetAll } from "./batch";
import type { StoreDeps } from "./client";
import { failedConditions, isConditionalCheckFailed } from "./errors";
import { ENTITY, gsi1, keys, type TableKey } from "./keys";
import { queryAll } from "./paging";
import { toPasskey } from "./passkeys";
import { transactItems } from "./pending-writes";
import { grantKey, holderKey } from "./rights";
import { deleteAndFinish, transactWrite } from "./transact";

type Item = Record<string, unknown>;

const keyOf = (item: Item): TableKey => ({ PK: item.PK as string, SK: item.SK as string });
const texts = (value: unknown): string[] => [...((value as Set<string> | string[] | undefined) ?? [])].sort();

/** The whole partition, strongly consistent, a page at a time (an account holds at most a few thousand items). */
function partitionItems({ client, tableName }: StoreDeps, sub: string): Promise<Item[]> {
  return queryAll(client, {
    TableName: tableName,
    KeyConditionExpression: "PK = :pk",
    ExpressionAttributeValues: { ":pk": keys.userPartition(sub) },
    ConsistentRead: true,
  });
}

function toEvent(item: Item): SecurityEvent {
  const { sbj, ts, type, cId, ip, ua, sid, result, prms } = item;
  return { sbj, ts, type, cId, ip, ua, sid, result, prms } as SecurityEvent;
}

/** The account's items by kind; each kind read through the fields its record type names. */
function toData(profile: Item, items: Item[]): AccountData {
  const of = (entity: string) => items.filter((item) => item.entity === entity);
  const codes = of(ENTITY.recoveryCodes)[0];
  const question = of(ENTITY.securityQuestion)[0];
  return {
    account: toAccount(profile),
    props: (profile.props as Properties | undefined) ?? {},
    devices: of(ENTITY.device) as unknown as DeviceRecord[],
    sessions: of(ENTITY.session) as unknown as SessionRecord[],
    consents: of(ENTITY.consent).map((item) => ({
      id: (item.SK as string).slice(keys.consentPrefix.length),
      updated: item.updated as number,
      client_id: item.client_id as string,
      scopes: texts(item.scopes),
    })),
    links: of(ENTITY.federatedLink).map((item) => ({
      sid: item.sid as string,
      fpType: item.fpType as string,
      fpName: item.fpName as string,
      ...(typeof item.userName === "string" && { userName: item.userName }),
      ...(typeof item.linkedAt === "number" && { linkedAt: item.linkedAt }),
    })),
    passkeys: of(ENTITY.passkey).map(toPasskey),
    totps: of(ENTITY.totpGenerator).map((item) => ({
      id: item.id as string,
      name: item.name as string,
      digits: item.len as number,
    })),
    ...(codes && {
      recoveryCodes: {
        remaining: Object.keys((codes.codes as Item | undefined) ?? {}).length,
        createdAt: codes.createdAt as number,
      },
    }),
    ...(question && { securityQuestion: { question: question.question as string } }),
    groups: of(ENTITY.membership).map((item) => ({
      profile: item.profile as string,
      id: item.groupId as string,
      addedAt: item.addedAt as number,
    })),
    rightsHeld: of(ENTITY.rightGrant).map((item) => ({
      object: item.objectKey as string,
      right: item.right as string,
      tags: texts(item.tags),
    })),
    rightsOver: of(ENTITY.rightHolder).map((item) => ({
      subject: item.subjectKey as string,
      right: item.right as string,
    })),
    events: of(ENTITY.securityEvent)
      .map(toEvent)
      .sort((a, b) => b.ts - a.ts),
  };
}

/** Uniqueness claims an item of the partition may hold, for the owner check before they go. */
function claimsOf(item: Item): TableKey[] {
  if (item.entity === ENTITY.passkey) return [keys.uniquePasskey(item.id as string)];
  if (item.entity === ENTITY.federatedLink)
    return [keys.uniqueFederatedAccount(item.fpType as string, item.fpName as string, item.sid as string)];
  return [];
}

/** The item and its mirror in another partition (a membership's member, a right's other half). */
function cleanupOf(sub: string, item: Item): TableKey[] {
  const own = keyOf(item);
  const user = { kind: "user" as const, id: sub };
  if (item.entity === ENTITY.membership)
    return [own, keys.groupMember(item.profile as string, item.groupId as string, sub)];
  if (item.entity === ENTITY.rightGrant) {
    const object = partyOfKey(item.objectKey as string);
    return object ? [own, holderKey({ subject: user, object, right: item.right as string })] : [own];
  }
  if (item.entity === ENTITY.rightHolder) {
    const subject = partyOfKey(item.subjectKey as string);
    return subject ? [own, grantKey({ subject, object: user, right: item.right as string })] : [own];
  }
  return [own];
}

/** An account's whole item collection: its owner's export, and its deletion (lib/domain/accounts/data-ports.ts). */
export function createAccountDataStore(deps: StoreDeps): AccountDataRepository {
  const { client, tableName } = deps;

  async function profileOf(sub: string): Promise<Item | undefined> {
    const { Item } = await client.send(
      new GetCommand({ TableName: tableName, Key: keys.userProfile(sub), ConsistentRead: true }),
    );
    return Item;
  }

  return {
    async read(sub: string): Promise<AccountData | undefined> {
      const items = await partitionItems(deps, sub);
      const profile = items.find((item) => item.entity === ENTITY.user);
      return profile && toData(profile, items);
    },

    async scheduleDeletion(sub: string, at: number, now: number, also: PendingWrite[]): Promise<boolean> {
      const index = gsi1.deletion(sub, at);
      try {
        await transactWrite(client, [
          {
            Update: {
              TableName: tableName,
              Key: keys.userProfile(sub),
              // Locked, it signs nobody in; off the inactivity index, onto the deletions'.
              UpdateExpression:
                "SET locked = :true, deletionScheduledAt = :at, updatedAt = :now, GSI1PK = :gpk, GSI1SK = :gsk",
              // Marking a missing account would create a bare profile.
              ConditionExpression: "attribute_exists(PK)",
              ExpressionAttributeValues: {
                ":true": true,
                ":at": at,
                ":now": now,
                ":gpk": index.GSI1PK,
                ":gsk": index.GSI1SK,
              },
            },
          },
          ...transactItems(also),
        ]);
        return true;
      } catch (error) {
        if (failedConditions(error)?.length) return false;
        throw error;
      }
    },

    async deleteAccount(sub, now, also): Promise<DeletionOutcome> {
      const profile = await profileOf(sub);
      if (!profile) return "gone";
      const account = toAccount(profile);
      const due = account.locked && account.deletionScheduledAt !== undefined && account.deletionScheduledAt <= now;
      if (!due) return "not_due";
      const items = (await partitionItems(deps, sub)).filter((item) => item.SK !== keys.userProfile(sub).SK);
      // Claims go only when ours: another account's claim of the same value must stay.
      const claimKeys = [
        ...(account.email ? [keys.uniqueEmail(account.email.value)] : []),
        ...(account.phone_number ? [keys.uniquePhone(account.phone_number.value)] : []),
        ...items.flatMap(claimsOf),
      ];
      const claims = (await batchGetAll(client, tableName, claimKeys)).filter((claim) => claim.owner === sub);
      const deletes = [
        ...items.flatMap((item) => cleanupOf(sub, item)),
        ...claims.map(keyOf),
        ...NAME_ATTRIBUTES.flatMap((name) => {
          const value = account[name];
          return value === undefined ? [] : [nameIndexDelete(tableName, name, value, sub).Delete.Key];
        }),
      ];
      try {
        await deleteAndFinish(client, tableName, deletes, [
          {
            Delete: {
              TableName: tableName,
              Key: keys.userProfile(sub),
              // Still locked and due: an operator's unlock meanwhile cancels the deletion.
              ConditionExpression: "locked = :true AND deletionScheduledAt <= :now",
              ExpressionAttributeValues: { ":true": true, ":now": now },
            },
          },
          ...transactItems(also(account)),
        ]);
      } catch (error) {
        if (failedConditions(error)?.length) return "not_due";
        throw error;
      }
      return "deleted";
    },

    async clearDeletion(sub: string, now: number): Promise<boolean> {
      try {
        await client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.userProfile(sub),
            // Off the deletions' index; its next sign-in puts it back on the inactivity index.
            UpdateExpression: "SET updatedAt = :now REMOVE deletionScheduledAt, GSI1PK, GSI1SK",
            // Only an account unlocked since it was marked: a locked one still waits for its deletion.
            ConditionExpression: "attribute_exists(deletionScheduledAt) AND locked = :false",
            ExpressionAttributeValues: { ":false": false, ":now": now },
          }),
        );
        return true;
      } catch (error) {
        if (isConditionalCheckFailed(error)) return false;
        throw error;
      }
    },

    async dueDeletions(now: number, limit: number): Promise<string[]> {
      const items = await queryAll(client, {
        TableName: tableName,
        IndexName: gsi1.indexName,
        KeyConditionExpression: "GSI1PK = :pk AND GSI1SK < :before",
        ExpressionAttributeValues: { ":pk": gsi1.accountDeletions, ":before": gsi1.deletionSortBefore(now + 1) },
        ProjectionExpression: "#sub",
        ExpressionAttributeNames: { "#sub": "sub" },
        Limit: limit,
      });
      return items.slice(0, limit).map((item) => item.sub as string);
    },
  };
}
