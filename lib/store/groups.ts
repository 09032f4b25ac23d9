import { GetCommand, QueryCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import type { Account } from "../domain/accounts/account";
import type { AttributeValue, Group } from "../domain/groups/group";
import {
  GroupExistsError,
  GroupFullError,
  GroupNotFoundError,
  type GroupRef,
  type GroupRepository,
  type MemberPage,
  type MemberPageRead,
  type MembershipPage,
  type MembershipPageRead,
  MembersRefusedError,
} from "../domain/groups/ports";
import { partyOfKey } from "../domain/rights/parties";
import { toAccount } from "./account-items";
import { batchGetAll, batchWriteAll, type WriteRequest } from "./batch";
import type { StoreDeps } from "./client";
import { failedConditions, isConditionalCheckFailed } from "./errors";
import { ENTITY, itemOf, keys, type TableKey } from "./keys";
import { queryPages } from "./paging";
import type { TransactItem } from "./pending-writes";
import { grantKey, holderKey } from "./rights";
import { deleteAndFinish, transactWrite } from "./transact";

// Conditions, named so each write says why it may fail.
/** A group id is taken once per profile; a group being deleted still holds it. */
const isNew = "attribute_not_exists(PK)";
/** Changes apply to a group that exists and is not being deleted. */
const groupLive = "attribute_exists(PK) AND attribute_not_exists(deleting)";
/** A member is added once and removed once, so the answer can say which were not. */
const memberAbsent = "attribute_not_exists(PK)";
const memberPresent = "attribute_exists(PK)";
/** Only an existing account can become a member. */
const accountExists = "attribute_exists(PK)";
/** The attributes map stays within its cap, so the item stays far below DynamoDB's 400 KB. */
const roomFor = "size(#attributes) <= :room";
/** A deletion starts only on a group that exists. */
const recordExists = "attribute_exists(PK)";
/** The group's item goes last, and only once its deletion was started. */
const deletionStarted = "attribute_exists(deleting)";

function toGroup(item: Record<string, unknown>): Group {
  return {
    id: item.id as string,
    profile: item.profile as string,
    ...(item.name !== undefined && { name: item.name as string }),
    attributes: (item.attributes as Record<string, AttributeValue>) ?? {},
    createdAt: item.createdAt as number,
    updatedAt: item.updatedAt as number,
  };
}

/** Both items of one membership: the member in the group's partition, the mirror in the user's. */
export function membershipItems(profile: string, id: string, sub: string, now: number) {
  return {
    member: itemOf(ENTITY.groupMember, keys.groupMember(profile, id, sub), { sub, addedAt: now }),
    mirror: itemOf(ENTITY.membership, keys.membership(sub, profile, id), { profile, groupId: id, addedAt: now }),
  };
}

/**
 * Groups (interface §2.3, 4.8). A group's item sits in its profile's partition; its members
 * in the group's own partition, each mirrored in the member's partition (membership both
 * ways, docs/architecture.md), and the rights held on the group live there too (lib/store/rights.ts).
 */
export function createGroupStore({ client, tableName }: StoreDeps): GroupRepository {
  async function readKey(key: TableKey) {
    const { Item } = await client.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }));
    return Item;
  }

  const readItem = (profile: string, id: string) => readKey(keys.group(profile, id));

  function headItem(profile: string, id: string) {
    return itemOf(ENTITY.groupHead, keys.groupHead(profile, id), { profile, id });
  }

  function memberWrites(profile: string, id: string, sub: string, now: number): TransactItem[] {
    const { member, mirror } = membershipItems(profile, id, sub, now);
    return [
      { ConditionCheck: { TableName: tableName, Key: keys.userProfile(sub), ConditionExpression: accountExists } },
      { Put: { TableName: tableName, Item: member, ConditionExpression: memberAbsent } },
      { Put: { TableName: tableName, Item: mirror } },
    ];
  }

  function memberRemovals(profile: string, id: string, sub: string): TransactItem[] {
    return [
      {
        Delete: { TableName: tableName, Key: keys.groupMember(profile, id, sub), ConditionExpression: memberPresent },
      },
      { Delete: { TableName: tableName, Key: keys.membership(sub, profile, id) } },
    ];
  }

  /**
   * The group check first, then `perMember` items for each account, in one transaction.
   * A failed condition becomes GroupNotFoundError, or what `refused` makes of the
   * failed members' positions (0, 1, ... within each member's items).
   */
  async function changeMembers(
    profile: string,
    id: string,
    subs: string[],
    itemsOf: (sub: string) => TransactItem[],
    refused: (failed: Array<{ sub: string; item: number }>) => Error,
  ): Promise<void> {
    const perMember = subs.length > 0 ? itemsOf(subs[0]).length : 0;
    try {
      await transactWrite(client, [liveGroupCheck(profile, id), ...subs.flatMap(itemsOf)]);
    } catch (error) {
      const failed = failedConditions(error);
      if (!failed || failed.length === 0) throw error;
      if (failed.includes(0)) throw new GroupNotFoundError();
      throw refused(failed.map((i) => ({ sub: subs[Math.floor((i - 1) / perMember)], item: (i - 1) % perMember })));
    }
  }

  function liveGroupCheck(profile: string, id: string): TransactItem {
    return { ConditionCheck: { TableName: tableName, Key: keys.group(profile, id), ConditionExpression: groupLive } };
  }

  /** The deletes that remove one item of a group's partition and its mirror elsewhere. */
  function cleanupOf(profile: string, id: string, item: Record<string, unknown>): TableKey[] {
    const own: TableKey = { PK: item.PK as string, SK: item.SK as string };
    if (item.entity === ENTITY.groupMember) return [own, keys.membership(item.sub as string, profile, id)];
    // A verified domain's directory item names this organization alone: it goes with the claim.
    if (item.entity === ENTITY.orgDomain && item.state === "verified")
      return [own, keys.domainOwner(item.domain as string)];
    // The token's lookup item lives outside the partition: it goes with the connection.
    if (item.entity === ENTITY.scimConnection) return [own, keys.scimToken(item.tokenDigest as string)];
    if (item.entity === ENTITY.rightHolder) {
      const subject = partyOfKey(item.subjectKey as string);
      if (!subject) return [own];
      const ref = { subject, object: { kind: "grps" as const, id, profile }, right: item.right as string };
      return [holderKey(ref), grantKey(ref)];
    }
    return [own];
  }

  return {
    async create(group: Group): Promise<void> {
      try {
        await transactWrite(client, [
          {
            Put: {
              TableName: tableName,
              Item: itemOf(ENTITY.group, keys.group(group.profile, group.id), group),
              ConditionExpression: isNew,
            },
          },
          // Unconditional: the record's condition decides, and a head is never left without one.
          { Put: { TableName: tableName, Item: headItem(group.profile, group.id) } },
        ]);
      } catch (error) {
        if (!failedConditions(error)?.includes(0)) throw error;
        // Failure path only: say whether the id is free again once a deletion finishes.
        throw new GroupExistsError(Boolean((await readItem(group.profile, group.id))?.deleting));
      }
    },

    /** The group, unless missing or being deleted: one GetItem. */
    async get(profile: string, id: string): Promise<Group | undefined> {
      const item = await readItem(profile, id);
      return item && !item.deleting ? toGroup(item) : undefined;
    },

    /** Member accounts, 100 per BatchGetItem (an expanded member list). */
    async accounts(subs: string[]): Promise<Account[]> {
      return (await batchGetAll(client, tableName, subs.map(keys.userProfile))).map(toAccount);
    },

    /** Live groups among `refs`, 100 per BatchGetItem (an expanded list of an account's groups). */
    async groups(refs: GroupRef[]): Promise<Group[]> {
      const items = await batchGetAll(
        client,
        tableName,
        refs.map((ref) => keys.group(ref.profile, ref.id)),
      );
      return items.filter((item) => !item.deleting).map(toGroup);
    },

    /**
     * One page of an account's memberships: one Query of the mirrors in its partition
     * (begins_with on the membership prefix, of one profile when given), one more than asked
     * so the page knows whether another follows.
     */
    async membershipsOf(sub: string, page: MembershipPage): Promise<MembershipPageRead> {
      const prefix = page.profile === undefined ? keys.membershipPrefix : keys.membershipsInProfile(page.profile);
      const { Items = [], LastEvaluatedKey } = await client.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: "PK = :pk AND begins_with(SK, :prefix)",
          ExpressionAttributeValues: { ":pk": keys.userPartition(sub), ":prefix": prefix },
          ...(page.after && { ExclusiveStartKey: keys.membership(sub, page.after.profile, page.after.id) }),
          Limit: page.limit + 1,
          ConsistentRead: true,
        }),
      );
      const memberships = Items.slice(0, page.limit).map((item) => ({
        profile: item.profile as string,
        id: item.groupId as string,
        addedAt: item.addedAt as number,
      }));
      // A page cut short by 1 MB leaves a LastEvaluatedKey with fewer items: more may follow then too.
      const more = Items.length > page.limit || LastEvaluatedKey !== undefined;
      const last = memberships.at(-1);
      return { memberships, ...(more && last && { next: { profile: last.profile, id: last.id } }) };
    },

    /** The groups of a profile, page by page (1 MB each), in id order. */
    async *pages(profile: string): AsyncGenerator<Group[]> {
      for await (const page of queryPages(client, {
        TableName: tableName,
        KeyConditionExpression: "PK = :pk",
        ExpressionAttributeValues: { ":pk": keys.groupsOfProfile(profile) },
        ConsistentRead: true,
      })) {
        yield page.filter((item) => !item.deleting).map(toGroup);
      }
    },

    /**
     * Sets and removes fields; `attributes` are the profile's own. Throws
     * GroupNotFoundError, or GroupFullError when the group has more than
     * `maxAttributes` minus the number set (each set attribute counted as new, since the
     * condition cannot tell new from replaced).
     */
    async update(
      profile: string,
      id: string,
      change: { name?: string | null; set: Record<string, AttributeValue>; remove: string[] },
      now: number,
      maxAttributes: number,
    ): Promise<Group> {
      const names: Record<string, string> = { "#updatedAt": "updatedAt" };
      const values: Record<string, unknown> = { ":now": now };
      const sets = ["#updatedAt = :now"];
      const removes: string[] = [];
      if (change.name !== undefined) {
        names["#name"] = "name";
        if (change.name === null) removes.push("#name");
        else {
          sets.push("#name = :name");
          values[":name"] = change.name;
        }
      }
      Object.entries(change.set).forEach(([field, value], i) => {
        names[`#a${i}`] = field;
        values[`:a${i}`] = value;
        sets.push(`#attributes.#a${i} = :a${i}`);
      });
      change.remove.forEach((field, i) => {
        names[`#r${i}`] = field;
        removes.push(`#attributes.#r${i}`);
      });
      const added = Object.keys(change.set).length;
      if (added > 0) values[":room"] = maxAttributes - added;
      // DynamoDB refuses placeholders an expression does not use.
      if (added > 0 || change.remove.length > 0) names["#attributes"] = "attributes";
      try {
        const { Attributes } = await client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.group(profile, id),
            UpdateExpression: `SET ${sets.join(", ")}${removes.length > 0 ? ` REMOVE ${removes.join(", ")}` : ""}`,
            ConditionExpression: added > 0 ? `${groupLive} AND ${roomFor}` : groupLive,
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: values,
            ReturnValues: "ALL_NEW",
          }),
        );
        return toGroup(Attributes ?? {});
      } catch (error) {
        if (!isConditionalCheckFailed(error)) throw error;
        const item = await readItem(profile, id);
        throw item && !item.deleting ? new GroupFullError() : new GroupNotFoundError();
      }
    },

    /**
     * One page of member subject ids in order, and whether the group is live: one Query of
     * the partition from the cursor takes `limit` members and, on the last page, the head
     * (it sorts after them), so a group of up to `limit` members costs one read. A page
     * with more after it, or a group without a head (one written before heads existed),
     * costs one GetItem more.
     */
    async members(profile: string, id: string, page: MemberPage): Promise<MemberPageRead> {
      const head = keys.groupHead(profile, id);
      const { Items = [], LastEvaluatedKey } = await client.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: "PK = :pk AND SK BETWEEN :members AND :head",
          ExpressionAttributeValues: { ":pk": head.PK, ":members": keys.groupMemberPrefix, ":head": head.SK },
          ...(page.after !== undefined && { ExclusiveStartKey: keys.groupMember(profile, id, page.after) }),
          // One more than asked: the head, or the member that shows another page follows.
          Limit: page.limit + 1,
          ConsistentRead: true,
        }),
      );
      const inPage = Items.find((item) => item.SK === head.SK);
      const memberItems = Items.filter((item) => item.SK !== head.SK);
      const subs = memberItems.slice(0, page.limit).map((item) => item.sub as string);
      const more = memberItems.length > page.limit || (inPage === undefined && LastEvaluatedKey !== undefined);
      // Not in the page: past it when more follow, else the group has no head.
      const record = inPage ?? (more ? await readKey(head) : undefined);
      const live = record ? !record.deleting : (await this.get(profile, id)) !== undefined;
      return { live, subs, ...(more && subs.length > 0 && { next: subs.at(-1) }) };
    },

    /**
     * Adds members in one transaction: all or none. Throws GroupNotFoundError, or
     * MembersRefusedError listing unknown accounts and members already in the group.
     */
    async addMembers(profile: string, id: string, subs: string[], now: number): Promise<void> {
      await changeMembers(
        profile,
        id,
        subs,
        (sub) => memberWrites(profile, id, sub, now),
        // Item 0 checks the account exists, item 1 that it is not a member yet.
        (failed) =>
          new MembersRefusedError(
            failed.filter((f) => f.item === 0).map((f) => f.sub),
            failed.filter((f) => f.item === 1).map((f) => f.sub),
            [],
          ),
      );
    },

    /** Removes members in one transaction: all or none. Lists those that were not members. */
    async removeMembers(profile: string, id: string, subs: string[]): Promise<void> {
      await changeMembers(
        profile,
        id,
        subs,
        (sub) => memberRemovals(profile, id, sub),
        (failed) =>
          new MembersRefusedError(
            [],
            [],
            failed.map((f) => f.sub),
          ),
      );
    },

    /**
     * Bulk load of members (administration and tests): both items of each membership
     * with BatchWriteItem, no checks. Not atomic; repeatable.
     */
    async importMembers(profile: string, id: string, subs: string[], now: number): Promise<void> {
      const requests: WriteRequest[] = subs.flatMap((sub) => {
        const { member, mirror } = membershipItems(profile, id, sub, now);
        return [{ PutRequest: { Item: member } }, { PutRequest: { Item: mirror } }];
      });
      await batchWriteAll(client, tableName, requests);
    },

    /**
     * Deletes a group with its members and the rights held on it. Too many items for one
     * transaction, so: mark the group deleting (from then on it is not found and takes
     * no members or rights), clear its partition and every mirror page by page, then
     * delete its item. Interrupted, a repeated delete finishes the job. False: no group.
     */
    async delete(profile: string, id: string): Promise<boolean> {
      try {
        const mark = { UpdateExpression: "SET deleting = :true", ExpressionAttributeValues: { ":true": true } };
        await transactWrite(client, [
          // Marking a missing group would create it; a group already marked is resumed.
          {
            Update: { TableName: tableName, Key: keys.group(profile, id), ConditionExpression: recordExists, ...mark },
          },
          // The head follows its record (a group from before heads gets one, cleared below with the rest).
          { Update: { TableName: tableName, Key: keys.groupHead(profile, id), ...mark } },
        ]);
      } catch (error) {
        if (failedConditions(error)?.includes(0)) return false;
        throw error;
      }
      // Each page's clean-up is sent once the next page is known, so the last one can go
      // with the record's removal: a group of up to ~50 members costs one write here.
      let lastPage: TableKey[] = [];
      for await (const page of queryPages(client, {
        TableName: tableName,
        KeyConditionExpression: "PK = :pk",
        ExpressionAttributeValues: { ":pk": keys.groupPartition(profile, id) },
        ConsistentRead: true,
      })) {
        await deleteAndFinish(client, tableName, lastPage, []);
        lastPage = page.flatMap((item) => cleanupOf(profile, id, item));
      }
      try {
        await deleteAndFinish(client, tableName, lastPage, [
          // Only the deletion this call marked (or resumed): never a group created since.
          { Delete: { TableName: tableName, Key: keys.group(profile, id), ConditionExpression: deletionStarted } },
        ]);
      } catch (error) {
        // A concurrent delete of the same group finished first: the outcome is the same.
        if (!isConditionalCheckFailed(error) && !failedConditions(error)?.length) throw error;
      }
      return true;
    },
  };
}
