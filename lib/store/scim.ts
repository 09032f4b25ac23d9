import { createHash } from "node:crypto";
import { GetCommand, QueryCommand } from "@aws-sdk/lib-dynamodb";
import { OrgChangeRefusedError, type OrgRefusal } from "../domain/organizations/ports";
import {
  type ScimConnection,
  type ScimRecord,
  ScimRecordRefusedError,
  type ScimRecords,
  type ScimRepository,
  type ScimResourceType,
} from "../domain/scim/ports";
import { batchGetAll } from "./batch";
import type { StoreDeps } from "./client";
import { failedConditions, isConflictAfterRetries } from "./errors";
import { ENTITY, itemOf, keys, type TableKey } from "./keys";
import { commitOrgChange, orgGuardItems } from "./organizations";
import { pendingWrite, type TransactItem, transactItems } from "./pending-writes";
import { transactWrite } from "./transact";

// Conditions, named so each write says why it may fail.
/** A new item: its key is not taken (a name claimed, a token's digest). */
const isNew = "attribute_not_exists(PK)";
/** The connection is still the one read: a concurrent rotation wins, this one reads again. */
const sameToken = "tokenDigest = :digest";
/** The record is still the revision read: no lost update between two changes. */
const sameVersion = "version = :version";
/** A name's claim released only by the record holding it. */
const heldBy = "#id = :id";

const CONNECTION_FIELDS = ["orgId", "tokenDigest", "tokenHint", "createdAt", "rotatedAt"] as const;
const RECORD_FIELDS = ["orgId", "id", "name", "attributes", "version", "created", "lastModified"] as const;

const pick = <T>(item: Record<string, unknown>, fields: readonly string[]) =>
  Object.fromEntries(fields.map((field) => [field, item[field]])) as T;

/** userName and displayName are case-insensitive (RFC 7643 4.1.1, 4.2): a claim is keyed by the lower-cased name's digest. */
const nameDigest = (name: string) => createHash("sha256").update(name.trim().toLowerCase(), "utf8").digest("base64url");

/** One resource type's records and name claims in the organization's partition. */
function recordStore({ client, tableName }: StoreDeps, type: ScimResourceType): ScimRecords {
  const recordKey = (orgId: string, id: string) => keys.scimRecord(orgId, type, id);
  const nameKey = (record: Pick<ScimRecord, "orgId" | "name">) =>
    keys.scimName(record.orgId, type, nameDigest(record.name));
  const toRecord = (item: Record<string, unknown>) => pick<ScimRecord>(item, RECORD_FIELDS);
  const recordPut = (
    record: ScimRecord,
    condition: { ConditionExpression: string; values?: Record<string, unknown> },
  ) => ({
    Put: {
      TableName: tableName,
      Item: itemOf(ENTITY.scimRecord, recordKey(record.orgId, record.id), { type, ...record }),
      ConditionExpression: condition.ConditionExpression,
      ...(condition.values && { ExpressionAttributeValues: condition.values }),
    },
  });
  const claimPut = (record: ScimRecord): TransactItem => ({
    Put: {
      TableName: tableName,
      Item: itemOf(ENTITY.scimName, nameKey(record), { type, id: record.id }),
      ConditionExpression: isNew,
    },
  });
  const claimDelete = (record: ScimRecord): TransactItem => ({
    Delete: {
      TableName: tableName,
      Key: nameKey(record),
      ConditionExpression: heldBy,
      ExpressionAttributeNames: { "#id": "id" },
      ExpressionAttributeValues: { ":id": record.id },
    },
  });
  const removal = (record: ScimRecord): TransactItem[] => [
    {
      Delete: {
        TableName: tableName,
        Key: recordKey(record.orgId, record.id),
        ConditionExpression: sameVersion,
        ExpressionAttributeValues: { ":version": record.version },
      },
    },
    claimDelete(record),
  ];

  async function get(key: TableKey) {
    const { Item } = await client.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }));
    return Item;
  }

  /** One transaction; the failed conditions' indexes decide the refusal. */
  async function commit(items: TransactItem[], nameClaimAt?: number) {
    try {
      await transactWrite(client, items);
    } catch (error) {
      if (isConflictAfterRetries(error)) throw new ScimRecordRefusedError("stale");
      const failed = failedConditions(error);
      if (!failed || failed.length === 0) throw error;
      throw new ScimRecordRefusedError(failed.includes(nameClaimAt ?? -1) ? "name" : "stale");
    }
  }

  return {
    async get(orgId, id) {
      const item = await get(recordKey(orgId, id));
      return item && toRecord(item);
    },

    async byName(orgId, name) {
      const claim = await get(keys.scimName(orgId, type, nameDigest(name)));
      if (!claim) return undefined;
      const item = await get(recordKey(orgId, claim.id as string));
      return item && toRecord(item);
    },

    async page(orgId, limit, after) {
      const { Items = [], LastEvaluatedKey } = await client.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: "PK = :pk AND begins_with(SK, :prefix)",
          ExpressionAttributeValues: { ":pk": recordKey(orgId, "").PK, ":prefix": keys.scimRecordPrefix(type) },
          ...(after !== undefined && { ExclusiveStartKey: recordKey(orgId, after) }),
          Limit: limit,
          ConsistentRead: true,
        }),
      );
      const records = Items.map(toRecord);
      const last = records.at(-1);
      return { records, ...(LastEvaluatedKey && last && { next: last.id }) };
    },

    async existing(orgId, ids) {
      const found = await batchGetAll(
        client,
        tableName,
        ids.map((id) => recordKey(orgId, id)),
        { expression: "#id", names: { "#id": "id" } },
      );
      return new Set(found.map((item) => item.id as string));
    },

    newItems: (record) => [recordPut(record, { ConditionExpression: isNew }), claimPut(record)].map(pendingWrite),

    async create(record, alsoWrite = []) {
      await commit(
        [recordPut(record, { ConditionExpression: isNew }), claimPut(record), ...transactItems(alsoWrite)],
        1,
      );
    },

    async replace(previous, next) {
      const items: TransactItem[] = [
        recordPut(next, { ConditionExpression: sameVersion, values: { ":version": previous.version } }),
      ];
      const renamed = nameDigest(previous.name) !== nameDigest(next.name);
      if (renamed) items.push(claimDelete(previous), claimPut(next));
      await commit(items, renamed ? 2 : undefined);
    },

    async remove(record) {
      await commit(removal(record));
    },

    removeItems: (record) => removal(record).map(pendingWrite),
  };
}

/** SCIM connections and provisioned resources (docs/scim.md), in the organization's partition. */
export function createScimStore({ client, tableName }: StoreDeps): ScimRepository {
  return {
    async connection(orgId) {
      const { Item } = await client.send(
        new GetCommand({ TableName: tableName, Key: keys.scimConnection(orgId), ConsistentRead: true }),
      );
      return Item && pick<ScimConnection>(Item, CONNECTION_FIELDS);
    },

    async orgOfToken(digest) {
      // Strongly consistent: a rotated or removed token is refused from the next call on.
      const { Item } = await client.send(
        new GetCommand({ TableName: tableName, Key: keys.scimToken(digest), ConsistentRead: true }),
      );
      return Item?.orgId as string | undefined;
    },

    async putConnection(connection, replaced, guard) {
      const writes: Array<[TransactItem, OrgRefusal]> = [
        [
          {
            Put: {
              TableName: tableName,
              Item: itemOf(ENTITY.scimConnection, keys.scimConnection(connection.orgId), connection),
              ConditionExpression: replaced ? sameToken : isNew,
              ...(replaced && { ExpressionAttributeValues: { ":digest": replaced.tokenDigest } }),
            },
          },
          "stale",
        ],
        [
          {
            Put: {
              TableName: tableName,
              Item: itemOf(ENTITY.scimToken, keys.scimToken(connection.tokenDigest), { orgId: connection.orgId }),
              ConditionExpression: isNew,
            },
          },
          "stale",
        ],
      ];
      if (replaced)
        writes.push([{ Delete: { TableName: tableName, Key: keys.scimToken(replaced.tokenDigest) } }, "stale"]);
      await commitOrgChange(
        { client, tableName },
        [...orgGuardItems(tableName, connection.orgId, guard), ...writes],
        guard,
      );
    },

    async removeConnection(connection, guard) {
      try {
        await commitOrgChange(
          { client, tableName },
          [
            ...orgGuardItems(tableName, connection.orgId, guard),
            [
              {
                Delete: {
                  TableName: tableName,
                  Key: keys.scimConnection(connection.orgId),
                  ConditionExpression: sameToken,
                  ExpressionAttributeValues: { ":digest": connection.tokenDigest },
                },
              },
              "absent",
            ],
            [{ Delete: { TableName: tableName, Key: keys.scimToken(connection.tokenDigest) } }, "absent"],
          ],
          guard,
        );
        return true;
      } catch (error) {
        if (error instanceof OrgChangeRefusedError && error.reasons.every((reason) => reason === "absent"))
          return false;
        throw error;
      }
    },

    users: recordStore({ client, tableName }, "User"),
    groups: recordStore({ client, tableName }, "Group"),
  };
}
