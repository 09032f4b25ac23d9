import { GetCommand } from "@aws-sdk/lib-dynamodb";
import { ORGANIZATION_PROFILE } from "../domain/groups/group";
import { type Party, partyKey } from "../domain/rights/parties";
import type { Check, GrantRef, GrantWrite, ReadGrants } from "../domain/rights/plan";
import { grantId } from "../domain/rights/plan";
import { type RightRepository, RightsCommitError } from "../domain/rights/ports";
import type { PendingWrite, Prefetch } from "../domain/unit-of-work";
import { batchGetAll, batchWriteAll, type WriteRequest } from "./batch";
import type { StoreDeps } from "./client";
import { failedConditions, isConflictAfterRetries } from "./errors";
import { ENTITY, itemOf, keys, SCHEMA_VERSION, type TableKey } from "./keys";
import { queryAll } from "./paging";
import { readPartition } from "./partition-read";
import { partyMarker, partyPartition, partyRecord } from "./party-keys";
import { prefetchOf, type TransactItem, transactItems } from "./pending-writes";
import { transactWrite } from "./transact";

// Conditions, named so each write says why it may fail.
/** A grant we read as absent must still be absent when we write it. */
const grantStillAbsent = "attribute_not_exists(PK)";
/** A grant we read must still be at the revision we read. */
const grantUnchanged = "#rev = :rev";
/** A catalogue entry must exist (its kinds are added per check). */
const definitionExists = "attribute_exists(PK)";
/** A member we read must still be one when its role revision moves on. */
const stillMember = "attribute_exists(PK)";
/** A user we read as no member must still be none: no revision to move. */
const stillNoMember = "attribute_not_exists(PK)";

/**
 * The organization member items a change of role grants touches: a right held by a user
 * over a group of profile org is a role (docs/organizations.md).
 */
function memberKeysOf(writes: readonly GrantWrite[]): TableKey[] {
  const found = new Map<string, TableKey>();
  for (const write of writes) {
    const { subject, object } = write;
    if (subject.kind !== "user" || object.kind !== "grps" || object.profile !== ORGANIZATION_PROFILE) continue;
    const key = keys.groupMember(ORGANIZATION_PROFILE, object.id, subject.id);
    found.set(`${key.PK}\n${key.SK}`, key);
  }
  return [...found.values()];
}

export function grantKey(ref: GrantRef): TableKey {
  return keys.rightGrant(partyPartition(ref.subject), partyKey(ref.object), ref.right);
}

export function holderKey(ref: GrantRef): TableKey {
  return keys.rightHolder(partyPartition(ref.object), partyKey(ref.subject), ref.right);
}

export function holderItem(ref: GrantRef) {
  return itemOf(ENTITY.rightHolder, holderKey(ref), {
    subjectKey: partyKey(ref.subject),
    objectKey: partyKey(ref.object),
    right: ref.right,
  });
}

export function grantItem(ref: GrantRef, tags: string[], rev: number) {
  return itemOf(ENTITY.rightGrant, grantKey(ref), {
    subjectKey: partyKey(ref.subject),
    objectKey: partyKey(ref.object),
    right: ref.right,
    tags: new Set(tags),
    rev,
  });
}

/** Tags join the grant's set whatever it holds, so adding needs no read and no guard. */
export function addTagsItem(tableName: string, ref: GrantRef, tags: string[]): TransactItem {
  return {
    Update: {
      TableName: tableName,
      Key: grantKey(ref),
      UpdateExpression:
        "SET #entity = :entity, #schemaVersion = :schemaVersion, #subjectKey = :subjectKey, #objectKey = :objectKey, #right = :right ADD #tags :tags, #rev :one",
      ExpressionAttributeNames: {
        "#entity": "entity",
        "#schemaVersion": "schemaVersion",
        "#subjectKey": "subjectKey",
        "#objectKey": "objectKey",
        "#right": "right",
        "#tags": "tags",
        "#rev": "rev",
      },
      ExpressionAttributeValues: {
        ":entity": ENTITY.rightGrant,
        ":schemaVersion": SCHEMA_VERSION,
        ":subjectKey": partyKey(ref.subject),
        ":objectKey": partyKey(ref.object),
        ":right": ref.right,
        ":tags": new Set(tags),
        ":one": 1,
      },
    },
  };
}

function toGrantState(item: Record<string, unknown>) {
  return { tags: [...((item.tags as Set<string> | undefined) ?? [])].sort(), rev: Number(item.rev ?? 0) };
}

/**
 * Rights (interface §2.4, 4.3). Each grant is two items written in one transaction: the grant
 * with its tags in the subject's partition ("rights of") and its mirror in the object's
 * partition ("rights on"), so both directions read consistently right after a write.
 */
function grantView(item: Record<string, unknown>): { objectKey: string; right: string; tags: string[] } {
  return { objectKey: item.objectKey as string, right: item.right as string, tags: toGrantState(item).tags };
}

function holderView(item: Record<string, unknown>): { subjectKey: string; right: string } {
  return { subjectKey: item.subjectKey as string, right: item.right as string };
}

export function createRightStore({ client, tableName }: StoreDeps): RightRepository {
  function checkItem(check: Check): TransactItem {
    if (check.kind === "party") {
      const record = partyRecord(check.party);
      return { ConditionCheck: { TableName: tableName, Key: record.key, ConditionExpression: record.condition } };
    }
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = {};
    const parts = [definitionExists];
    // The stored definition must allow every kind of subject and object it is given to.
    for (const [field, kinds] of [
      ["subjectTypes", check.subjectTypes],
      ["objectTypes", check.objectTypes],
    ] as const) {
      kinds.forEach((kind, i) => {
        names[`#${field}`] = field;
        values[`:${field}${i}`] = kind;
        parts.push(`contains(#${field}, :${field}${i})`);
      });
    }
    return {
      ConditionCheck: {
        TableName: tableName,
        Key: keys.rightDefinition(check.right),
        ConditionExpression: parts.join(" AND "),
        ...(Object.keys(names).length > 0 && { ExpressionAttributeNames: names, ExpressionAttributeValues: values }),
      },
    };
  }

  function writeItems(write: GrantWrite): TransactItem[] {
    switch (write.op) {
      case "add":
        return [addTagsItem(tableName, write, write.tags), { Put: { TableName: tableName, Item: holderItem(write) } }];
      case "put":
        return [
          {
            Put: {
              TableName: tableName,
              Item: grantItem(write, write.tags, (write.expectedRev ?? 0) + 1),
              ...(write.expectedRev === undefined
                ? { ConditionExpression: grantStillAbsent }
                : {
                    ConditionExpression: grantUnchanged,
                    ExpressionAttributeNames: { "#rev": "rev" },
                    ExpressionAttributeValues: { ":rev": write.expectedRev },
                  }),
            },
          },
          { Put: { TableName: tableName, Item: holderItem(write) } },
        ];
      case "delete":
        return [
          {
            Delete: {
              TableName: tableName,
              Key: grantKey(write),
              ConditionExpression: grantUnchanged,
              ExpressionAttributeNames: { "#rev": "rev" },
              ExpressionAttributeValues: { ":rev": write.expectedRev },
            },
          },
          { Delete: { TableName: tableName, Key: holderKey(write) } },
        ];
    }
  }

  /**
   * A role granted or revoked here moves its member's role revision, as the organization
   * routes' own changes do, so a removal that read the member's roles before is refused and
   * reads again rather than leave this grant behind. A member that left meanwhile, or a user
   * that joined, refuses the commit: the caller reads again.
   */
  async function memberRevisions(writes: readonly GrantWrite[]): Promise<TransactItem[]> {
    const memberKeys = memberKeysOf(writes);
    if (memberKeys.length === 0) return [];
    const members = await batchGetAll(client, tableName, memberKeys, {
      expression: "#pk, #sk",
      names: { "#pk": "PK", "#sk": "SK" },
    });
    const present = new Set(members.map((item) => `${item.PK}\n${item.SK}`));
    return memberKeys.map(
      (key): TransactItem =>
        present.has(`${key.PK}\n${key.SK}`)
          ? {
              Update: {
                TableName: tableName,
                Key: key,
                UpdateExpression: "ADD #rolesRev :one",
                ConditionExpression: stillMember,
                ExpressionAttributeNames: { "#rolesRev": "rolesRev" },
                ExpressionAttributeValues: { ":one": 1 },
              },
            }
          : { ConditionCheck: { TableName: tableName, Key: key, ConditionExpression: stillNoMember } },
    );
  }

  return {
    /** The current state of these grants, strongly consistent (BatchGetItem). */
    async readGrants(refs: GrantRef[]): Promise<ReadGrants> {
      const read: ReadGrants = new Map(refs.map((ref) => [grantId(ref), null]));
      const items = await batchGetAll(client, tableName, refs.map(grantKey), {
        expression: "#pk, #sk, #tags, #rev",
        names: { "#pk": "PK", "#sk": "SK", "#tags": "tags", "#rev": "rev" },
      });
      const byKey = new Map(items.map((item) => [`${item.PK}\n${item.SK}`, item]));
      for (const ref of refs) {
        const key = grantKey(ref);
        const item = byKey.get(`${key.PK}\n${key.SK}`);
        if (item) read.set(grantId(ref), toGrantState(item));
      }
      return read;
    },

    /** The keys of these grants for another read's BatchGetItem; answers the grantIds found. */
    heldPrefetch(refs: GrantRef[]): Prefetch<Set<string>> {
      return prefetchOf({
        keys: refs.map(grantKey),
        read(found) {
          const present = new Set(found.map((item) => `${item.PK}\n${item.SK}`));
          return new Set(refs.filter((ref) => present.has(`${grantKey(ref).PK}\n${grantKey(ref).SK}`)).map(grantId));
        },
      });
    },

    /** Checks and writes in one transaction; throws RightsCommitError when refused. */
    /** `alsoWrite`: unconditional items riding in the same transaction (a user-mode call's security event). */
    async commit(checks: Check[], writes: GrantWrite[], alsoWrite: PendingWrite[] = []): Promise<void> {
      const items = [
        ...checks.map(checkItem),
        ...writes.flatMap(writeItems),
        ...(await memberRevisions(writes)),
        ...transactItems(alsoWrite),
      ];
      try {
        await transactWrite(client, items);
      } catch (error) {
        // Still clashing with other transactions after the retries of transactWrite: read again.
        if (isConflictAfterRetries(error)) throw new RightsCommitError([], true);
        const failed = failedConditions(error);
        if (!failed || failed.length === 0) throw error;
        throw new RightsCommitError(
          failed.filter((i) => i < checks.length).map((i) => checks[i]),
          failed.some((i) => i >= checks.length),
        );
      }
    },

    /** Rights held by a subject: object key, right, tags. */
    async grantsOf(subject: Party): Promise<Array<{ objectKey: string; right: string; tags: string[] }>> {
      const items = await queryAll(client, {
        TableName: tableName,
        KeyConditionExpression: "PK = :pk AND begins_with(SK, :prefix)",
        ExpressionAttributeValues: { ":pk": partyPartition(subject), ":prefix": keys.rightGrantPrefix },
        ProjectionExpression: "#objectKey, #right, #tags",
        ExpressionAttributeNames: { "#objectKey": "objectKey", "#right": "right", "#tags": "tags" },
        ConsistentRead: true,
      });
      return items.map(grantView);
    },

    /** Rights held on an object: subject key and right. */
    async holdersOn(object: Party): Promise<Array<{ subjectKey: string; right: string }>> {
      const items = await queryAll(client, {
        TableName: tableName,
        KeyConditionExpression: "PK = :pk AND begins_with(SK, :prefix)",
        ExpressionAttributeValues: { ":pk": partyPartition(object), ":prefix": keys.rightHolderPrefix },
        ProjectionExpression: "#subjectKey, #right",
        ExpressionAttributeNames: { "#subjectKey": "subjectKey", "#right": "right" },
        ConsistentRead: true,
      });
      return items.map(holderView);
    },

    /**
     * A party's items under `prefix` and whether the party exists: one Query takes the
     * items and the party's marker (partyMarker). A group without a head (none, or one
     * written before heads existed) and without items costs a GetItem of its record.
     */
    async itemsOfParty(party: Party, prefix: string): Promise<{ items: Record<string, unknown>[]; exists: boolean }> {
      const marker = partyMarker(party);
      const read = await readPartition(client, tableName, marker.PK, [prefix], marker.SK);
      const items = read.byPrefix.get(prefix) ?? [];
      if (read.record) return { items, exists: !read.record.deleting };
      const exists = items.length > 0 || (party.kind === "grps" && (await this.partyExists(party)));
      return { items, exists };
    },

    /** Rights held by a subject, and whether it exists (one Query for accounts and applications). */
    async grantsOfParty(subject: Party) {
      const { items, exists } = await this.itemsOfParty(subject, keys.rightGrantPrefix);
      return { exists, grants: items.map(grantView) };
    },

    /** Rights held on an object, and whether it exists (one Query for accounts and applications). */
    async holdersOnParty(object: Party) {
      const { items, exists } = await this.itemsOfParty(object, keys.rightHolderPrefix);
      return { exists, holders: items.map(holderView) };
    },

    async partyExists(party: Party): Promise<boolean> {
      const { Item } = await client.send(
        new GetCommand({ TableName: tableName, Key: partyRecord(party).key, ConsistentRead: true }),
      );
      return Boolean(Item) && !(party.kind === "grps" && Item?.deleting);
    },

    /**
     * Whether one user holds a right on another: one strongly consistent GetItem. (The
     * subordinate password change reads its right within the login snapshot instead.)
     */
    async hasRight(subjectSub: string, objectSub: string, right: string): Promise<boolean> {
      const { Item } = await client.send(
        new GetCommand({
          TableName: tableName,
          Key: grantKey({ subject: { kind: "user", id: subjectSub }, object: { kind: "user", id: objectSub }, right }),
          ProjectionExpression: "PK",
          ConsistentRead: true,
        }),
      );
      return Boolean(Item);
    },

    /**
     * Bulk load (administration and tests): both items of each grant with BatchWriteItem,
     * no checks, replacing tags. Not atomic; repeatable.
     */
    async importGrants(grants: Array<GrantRef & { tags: string[] }>): Promise<void> {
      const requests: WriteRequest[] = grants.flatMap((grant) => [
        { PutRequest: { Item: grantItem(grant, grant.tags, 1) } },
        { PutRequest: { Item: holderItem(grant) } },
      ]);
      await batchWriteAll(client, tableName, requests);
    },
  };
}
