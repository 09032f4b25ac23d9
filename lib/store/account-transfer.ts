import { ScanCommand } from "@aws-sdk/lib-dynamodb";
import pLimit from "p-limit";
import { NAME_ATTRIBUTES } from "../domain/accounts/account";
import { AccountConflictError, type UniqueField } from "../domain/accounts/ports";
import {
  type AccountPageOptions,
  type AccountRecord,
  AccountTooLargeError,
  type AccountTransferRepository,
} from "../domain/accounts/transfer-ports";
import type { StoredPasswordHash } from "../domain/credentials/password-hash";
import { partyOfKey } from "../domain/rights/parties";
import type { StoredGenerator } from "../domain/security/ports";
import { accountCreationItems, toAccount } from "./account-items";
import type { StoreDeps } from "./client";
import { failedConditions } from "./errors";
import { membershipItems } from "./groups";
import { ENTITY, itemOf, keys } from "./keys";
import { queryAll } from "./paging";
import { toPasskey } from "./passkeys";
import type { TransactItem } from "./pending-writes";
import { grantItem, holderItem } from "./rights";
import { transactWrite } from "./transact";

type Item = Record<string, unknown>;

/** DynamoDB's cap on the items of one TransactWriteItems. */
const TRANSACTION_ITEMS = 100;
/** Accounts read at once while a page is assembled. */
const READS_IN_FLIGHT = 16;

/** What an account's item collection holds that the export carries; the rest (sessions, events...) stays. */
const CARRIED = [ENTITY.user, ENTITY.passwordCredential, ENTITY.membership, ENTITY.rightGrant];
const FACTORS = [ENTITY.totpGenerator, ENTITY.passkey];

function toGenerator(item: Item): StoredGenerator {
  return {
    id: item.id as string,
    name: item.name as string,
    len: item.len as number,
    secret: item.secret as string,
    ...(item.lastStep !== undefined && { lastStep: item.lastStep as number }),
  };
}

function toCredential(item: Item): NonNullable<AccountRecord["credential"]> {
  const { PK: _pk, SK: _sk, entity: _e, schemaVersion: _v, changedAt, history, ...hash } = item;
  return {
    hash: hash as unknown as StoredPasswordHash,
    ...(changedAt !== undefined && { changedAt: changedAt as number }),
    ...(Array.isArray(history) && history.length > 0 && { history: history as StoredPasswordHash[] }),
  };
}

/** The record of one account's items (profile first in the list or not). */
function toRecord(items: Item[]): AccountRecord | undefined {
  const profile = items.find((item) => item.entity === ENTITY.user);
  if (!profile) return undefined;
  const { pending_email: _e, pending_phone_number: _p, ...account } = toAccount(profile);
  const credential = items.find((item) => item.entity === ENTITY.passwordCredential);
  const of = (entity: string) => items.filter((item) => item.entity === entity);
  return {
    account,
    ...(credential && { credential: toCredential(credential) }),
    groups: of(ENTITY.membership).map((item) => ({
      profile: item.profile as string,
      id: item.groupId as string,
      addedAt: item.addedAt as number,
    })),
    rights: of(ENTITY.rightGrant).map((item) => ({
      object: item.objectKey as string,
      right: item.right as string,
      tags: [...((item.tags as Set<string> | undefined) ?? [])].sort(),
    })),
    totps: of(ENTITY.totpGenerator).map(toGenerator),
    passkeys: of(ENTITY.passkey).map(toPasskey),
  };
}

/** DynamoDB stores no empty set: a grant without tags has no tags attribute, as rights/change leaves it. */
function grantWithoutEmptyTags(item: ReturnType<typeof grantItem>): Item {
  const { tags, ...rest } = item;
  return tags.size > 0 ? item : rest;
}

/** When the account counts as inactive from, as a sign-in leaves it; null when it is no candidate. */
function inactiveSince(account: AccountRecord["account"]): number | null {
  if (account.locked || account.state?.name === "inactivityLock" || account.state?.name === "untouchable") return null;
  return account.lastLoginAt ?? account.createdAt;
}

/** Export and import of whole accounts (lib/domain/accounts/transfer-ports.ts). */
export function createAccountTransferStore({
  client,
  tableName,
  indexedNames,
}: StoreDeps & { indexedNames: readonly string[] }): AccountTransferRepository {
  const namesIndexed = NAME_ATTRIBUTES.filter((name) => indexedNames.includes(name));
  const reads = pLimit(READS_IN_FLIGHT);

  async function read(sub: string, factors: boolean): Promise<AccountRecord | undefined> {
    const entities = factors ? [...CARRIED, ...FACTORS] : CARRIED;
    // One Query of the item collection; the filter drops sessions, devices and events.
    const items = await queryAll(client, {
      TableName: tableName,
      KeyConditionExpression: "PK = :pk",
      FilterExpression: `entity IN (${entities.map((_, i) => `:e${i}`).join(", ")})`,
      ExpressionAttributeValues: {
        ":pk": keys.userPartition(sub),
        ...Object.fromEntries(entities.map((entity, i) => [`:e${i}`, entity])),
      },
      ConsistentRead: true,
    });
    return toRecord(items);
  }

  /** One segment's Scan of profiles, a page at a time, each page's accounts read whole. */
  async function* segmentPages(segment: number, options: AccountPageOptions): AsyncGenerator<AccountRecord[]> {
    let start: Item | undefined;
    do {
      const page = await client.send(
        new ScanCommand({
          TableName: tableName,
          Segment: segment,
          TotalSegments: options.segments,
          FilterExpression: "entity = :user",
          ProjectionExpression: "PK, SK, #sub",
          ExpressionAttributeNames: { "#sub": "sub" },
          ExpressionAttributeValues: { ":user": ENTITY.user },
          ConsistentRead: true,
          ExclusiveStartKey: start,
        }),
      );
      const subs = (page.Items ?? []).map((item) => item.sub as string);
      const records = await Promise.all(subs.map((sub) => reads(() => read(sub, options.factors))));
      // An account deleted between the Scan and its read is simply not exported.
      yield records.filter((record): record is AccountRecord => record !== undefined);
      start = page.LastEvaluatedKey;
    } while (start);
  }

  return {
    async *pages(options: AccountPageOptions): AsyncIterable<AccountRecord[]> {
      // Segments advance together, one page each per round: memory stays at a page per segment.
      let active = Array.from({ length: options.segments }, (_, segment) => segmentPages(segment, options));
      while (active.length > 0) {
        const round = await Promise.all(active.map(async (pages) => ({ pages, next: await pages.next() })));
        active = round.filter(({ next }) => !next.done).map(({ pages }) => pages);
        for (const { next } of round) if (!next.done && next.value.length > 0) yield next.value;
      }
    },

    read,

    async write(record: AccountRecord): Promise<void> {
      const { account } = record;
      const creation = accountCreationItems(
        tableName,
        namesIndexed,
        account,
        record.credential,
        inactiveSince(account),
      );
      const extra: TransactItem[] = [];
      for (const group of record.groups) {
        const { member, mirror } = membershipItems(group.profile, group.id, account.sub, group.addedAt);
        extra.push({ Put: { TableName: tableName, Item: member } }, { Put: { TableName: tableName, Item: mirror } });
      }
      for (const right of record.rights) {
        const object = partyOfKey(right.object);
        if (!object) throw new Error(`right ${right.right}: "${right.object}" names no party`);
        const ref = { subject: { kind: "user" as const, id: account.sub }, object, right: right.right };
        extra.push(
          { Put: { TableName: tableName, Item: grantWithoutEmptyTags(grantItem(ref, right.tags, 1)) } },
          { Put: { TableName: tableName, Item: holderItem(ref) } },
        );
      }
      for (const generator of record.totps) {
        extra.push({
          Put: {
            TableName: tableName,
            Item: itemOf(ENTITY.totpGenerator, keys.totpGenerator(account.sub, generator.id), generator),
          },
        });
      }
      const extraFields: Array<UniqueField | undefined> = extra.map(() => undefined);
      for (const passkey of record.passkeys) {
        extra.push(
          {
            Put: { TableName: tableName, Item: itemOf(ENTITY.passkey, keys.passkey(account.sub, passkey.id), passkey) },
          },
          {
            Put: {
              TableName: tableName,
              Item: itemOf(ENTITY.uniquePasskey, keys.uniquePasskey(passkey.id), { owner: account.sub }),
              // A credential id belongs to one account, imported or enrolled.
              ConditionExpression: "attribute_not_exists(PK)",
            },
          },
        );
        extraFields.push(undefined, "passkey");
      }
      const items = [...creation.items, ...extra];
      const fields = [...creation.fields, ...extraFields];
      if (items.length > TRANSACTION_ITEMS) throw new AccountTooLargeError(items.length);
      try {
        // The profile's condition (a new sub) guards the account's other items, which live in
        // its partition or mirror it: the whole account is written or nothing.
        await transactWrite(client, items);
      } catch (error) {
        const failed = failedConditions(error);
        if (!failed || failed.length === 0) throw error;
        throw new AccountConflictError(
          failed.map((i) => fields[i]).filter((field): field is UniqueField => field !== undefined),
        );
      }
    },
  };
}
