import { createHash } from "node:crypto";
import { GetCommand, QueryCommand } from "@aws-sdk/lib-dynamodb";
import { OrgChangeRefusedError, type OrgRefusal } from "../domain/organizations/ports";
import {
  type ScimConnection,
  type ScimRepository,
  type ScimUserRecord,
  ScimUserRefusedError,
} from "../domain/scim/ports";
import type { StoreDeps } from "./client";
import { failedConditions, isConflictAfterRetries } from "./errors";
import { ENTITY, itemOf, keys } from "./keys";
import { commitOrgChange, orgGuardItems } from "./organizations";
import { pendingWrite, type TransactItem } from "./pending-writes";
import { transactWrite } from "./transact";

// Conditions, named so each write says why it may fail.
/** A new item: its key is not taken (a userName claimed, a token's digest). */
const isNew = "attribute_not_exists(PK)";
/** The connection is still the one read: a concurrent rotation wins, this one reads again. */
const sameToken = "tokenDigest = :digest";
/** The record is still the revision read: no lost update between two changes. */
const sameVersion = "version = :version";
/** A userName claim released only by the user holding it. */
const heldBy = "#sub = :sub";

const CONNECTION_FIELDS = ["orgId", "tokenDigest", "tokenHint", "createdAt", "rotatedAt"] as const;
const USER_FIELDS = ["orgId", "sub", "userName", "attributes", "version", "created", "lastModified"] as const;

const pick = <T>(item: Record<string, unknown>, fields: readonly string[]) =>
  Object.fromEntries(fields.map((field) => [field, item[field]])) as T;

/** userName is case-insensitive (RFC 7643 4.1.1): its claim is keyed by the lower-cased value's digest. */
const nameDigest = (userName: string) =>
  createHash("sha256").update(userName.trim().toLowerCase(), "utf8").digest("base64url");

/** SCIM connections and provisioned users (docs/scim.md), in the organization's partition. */
export function createScimStore({ client, tableName }: StoreDeps): ScimRepository {
  const toUser = (item: Record<string, unknown>) => pick<ScimUserRecord>(item, USER_FIELDS);
  const userItem = (record: ScimUserRecord) => itemOf(ENTITY.scimUser, keys.scimUser(record.orgId, record.sub), record);
  const nameKey = (record: Pick<ScimUserRecord, "orgId" | "userName">) =>
    keys.scimUserName(record.orgId, nameDigest(record.userName));
  const claimPut = (record: ScimUserRecord): TransactItem => ({
    Put: {
      TableName: tableName,
      Item: itemOf(ENTITY.scimUserName, nameKey(record), { sub: record.sub }),
      ConditionExpression: isNew,
    },
  });
  const claimDelete = (record: ScimUserRecord): TransactItem => ({
    Delete: {
      TableName: tableName,
      Key: nameKey(record),
      ConditionExpression: heldBy,
      ExpressionAttributeNames: { "#sub": "sub" },
      ExpressionAttributeValues: { ":sub": record.sub },
    },
  });

  const userRemoval = (record: ScimUserRecord): TransactItem[] => [
    {
      Delete: {
        TableName: tableName,
        Key: keys.scimUser(record.orgId, record.sub),
        ConditionExpression: sameVersion,
        ExpressionAttributeValues: { ":version": record.version },
      },
    },
    claimDelete(record),
  ];

  async function get(key: { PK: string; SK: string }) {
    const { Item } = await client.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }));
    return Item;
  }

  /** One transaction of user items; the failed condition's index decides the refusal. */
  async function commitUser(items: TransactItem[], reasonOf: (index: number) => ScimUserRefusedError["reason"]) {
    try {
      await transactWrite(client, items);
    } catch (error) {
      if (isConflictAfterRetries(error)) throw new ScimUserRefusedError("stale");
      const failed = failedConditions(error);
      if (!failed || failed.length === 0) throw error;
      throw new ScimUserRefusedError(failed.map(reasonOf).includes("userName") ? "userName" : "stale");
    }
  }

  return {
    async connection(orgId) {
      const item = await get(keys.scimConnection(orgId));
      return item && pick<ScimConnection>(item, CONNECTION_FIELDS);
    },

    async orgOfToken(digest) {
      // Strongly consistent: a rotated or removed token is refused from the next call on.
      const item = await get(keys.scimToken(digest));
      return item?.orgId as string | undefined;
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

    async user(orgId, sub) {
      const item = await get(keys.scimUser(orgId, sub));
      return item && toUser(item);
    },

    async userByName(orgId, userName) {
      const claim = await get(keys.scimUserName(orgId, nameDigest(userName)));
      if (!claim) return undefined;
      const item = await get(keys.scimUser(orgId, claim.sub as string));
      return item && toUser(item);
    },

    async users(orgId, limit, after) {
      const partition = keys.scimUser(orgId, "").PK;
      const { Items = [], LastEvaluatedKey } = await client.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: "PK = :pk AND begins_with(SK, :prefix)",
          ExpressionAttributeValues: { ":pk": partition, ":prefix": keys.scimUserPrefix },
          ...(after !== undefined && { ExclusiveStartKey: keys.scimUser(orgId, after) }),
          Limit: limit,
          ConsistentRead: true,
        }),
      );
      const records = Items.map(toUser);
      const last = records.at(-1);
      return { records, ...(LastEvaluatedKey && last && { next: last.sub }) };
    },

    newUserItems(record) {
      return [
        pendingWrite({ Put: { TableName: tableName, Item: userItem(record), ConditionExpression: isNew } }),
        pendingWrite(claimPut(record)),
      ];
    },

    async replaceUser(previous, next) {
      const items: TransactItem[] = [
        {
          Put: {
            TableName: tableName,
            Item: userItem(next),
            ConditionExpression: sameVersion,
            ExpressionAttributeValues: { ":version": previous.version },
          },
        },
      ];
      const renamed = nameDigest(previous.userName) !== nameDigest(next.userName);
      if (renamed) items.push(claimDelete(previous), claimPut(next));
      await commitUser(items, (index) => (index === 2 ? "userName" : "stale"));
    },

    async removeUser(record) {
      await commitUser(userRemoval(record), () => "stale");
    },

    removeUserItems: (record) => userRemoval(record).map(pendingWrite),
  };
}
