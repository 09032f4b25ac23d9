import { randomBytes } from "node:crypto";
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import {
  type ClientRecord,
  type ClientRegistration,
  type ClientSecrets,
  DEFAULT_ID_TOKEN_ALG,
  LEGACY_GRANT_TYPES,
} from "../domain/clients/client";
import {
  ClientExistsError,
  type ClientGuard,
  type ClientRepository,
  type ClientSnapshot,
  type ClientUpdate,
} from "../domain/clients/ports";
import type { PendingWrite } from "../domain/unit-of-work";
import { batchGetAll } from "./batch";
import type { StoreDeps } from "./client";
import { failedConditions, isConditionalCheckFailed } from "./errors";
import { ENTITY, gsi1, itemOf, keys } from "./keys";
import { queryAll } from "./paging";
import { transactItems } from "./pending-writes";
import { transactUnlessRefused, transactWrite } from "./transact";
import { buildUpdate } from "./update-expression";

const PUBLIC_FIELDS = [
  "clientId",
  "scopes",
  "redirectUris",
  "hasRestPassword",
  "public",
  "grantTypes",
  "postLogoutRedirectUris",
  "resources",
  "exchangeFrom",
  "firstParty",
  "trustRelayedAddress",
  "requirePushedAuthorizationRequests",
  "idTokenSignedResponseAlg",
  "dpopBoundAccessTokens",
  "backchannelLogoutUri",
  "bootstrap",
  "registration",
  "expiresAt",
  "createdAt",
  "updatedAt",
];

/** Lists read the public fields only: secret digests never leave the table there. */
const PUBLIC_PROJECTION = {
  // Names, not words: "public" and others are DynamoDB reserved words.
  ProjectionExpression: PUBLIC_FIELDS.map((_, i) => `#f${i}`).join(", "),
  ExpressionAttributeNames: Object.fromEntries(PUBLIC_FIELDS.map((field, i) => [`#f${i}`, field])),
};

function toRecord(item: Record<string, unknown>): ClientRecord {
  return {
    clientId: item.clientId as string,
    scopes: (item.scopes as string[]) ?? [],
    redirectUris: (item.redirectUris as string[]) ?? [],
    hasRestPassword: Boolean(item.hasRestPassword),
    public: Boolean(item.public),
    grantTypes: (item.grantTypes as string[] | undefined) ?? [...LEGACY_GRANT_TYPES],
    postLogoutRedirectUris: (item.postLogoutRedirectUris as string[] | undefined) ?? [],
    resources: (item.resources as string[] | undefined) ?? [],
    exchangeFrom: (item.exchangeFrom as string[] | undefined) ?? [],
    firstParty: Boolean(item.firstParty),
    trustRelayedAddress: Boolean(item.trustRelayedAddress),
    requirePushedAuthorizationRequests: Boolean(item.requirePushedAuthorizationRequests),
    // Clients stored before the choice existed get the OIDC default.
    idTokenSignedResponseAlg: item.idTokenSignedResponseAlg === "ES256" ? "ES256" : DEFAULT_ID_TOKEN_ALG,
    dpopBoundAccessTokens: Boolean(item.dpopBoundAccessTokens),
    ...(typeof item.backchannelLogoutUri === "string" && { backchannelLogoutUri: item.backchannelLogoutUri }),
    bootstrap: Boolean(item.bootstrap),
    ...(item.registration !== undefined && { registration: item.registration as ClientRegistration }),
    ...(typeof item.expiresAt === "number" && { expiresAt: item.expiresAt }),
    createdAt: item.createdAt as number,
    updatedAt: item.updatedAt as number,
  };
}

/** A registered client unused past its time is gone, though DynamoDB's TTL deletes it only later. */
const live = (item: Record<string, unknown> | undefined, now = Math.floor(Date.now() / 1000)) =>
  item && !(typeof item.expiresAt === "number" && item.expiresAt <= now) ? item : undefined;

/** Every write gives the item a new revision, so a change guarded by the one it read cannot act on a stale record. */
const newRevision = () => randomBytes(9).toString("base64url");

/** The condition of a guarded write (ClientGuard); flags absent on older items count as false. */
function guardCondition(guard: ClientGuard) {
  const parts = ["attribute_exists(PK)"];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  if (guard.revision !== undefined) {
    names["#g_rev"] = "revision";
    if (guard.revision === "") parts.push("attribute_not_exists(#g_rev)");
    else {
      parts.push("#g_rev = :g_rev");
      values[":g_rev"] = guard.revision;
    }
  }
  const notSet = (flag: string) => {
    names[`#g_${flag}`] = flag;
    values[":g_false"] = false;
    parts.push(`(attribute_not_exists(#g_${flag}) OR #g_${flag} = :g_false)`);
  };
  if (guard.notBootstrap) notSet("bootstrap");
  if (guard.confidential) notSet("public");
  return { ConditionExpression: parts.join(" AND "), names, values };
}

/** Applications (OAuth clients). Secret hashes are read only by `getWithSecrets`. */
export function createClientStore({ client, tableName }: StoreDeps): ClientRepository {
  const read = async (clientId: string) =>
    live(
      (await client.send(new GetCommand({ TableName: tableName, Key: keys.client(clientId), ConsistentRead: true })))
        .Item,
    );

  const putOf = (record: ClientRecord, secrets: ClientSecrets, overwrite: boolean) => ({
    TableName: tableName,
    Item: itemOf(ENTITY.client, keys.client(record.clientId), {
      ...record,
      ...secrets,
      revision: newRevision(),
      GSI1PK: gsi1.allClients,
      GSI1SK: gsi1.clientSort(record.clientId),
    }),
    // A new client must not silently replace another application's credentials.
    ConditionExpression: overwrite ? undefined : "attribute_not_exists(PK)",
  });

  return {
    /** Writes a client; `overwrite` false refuses to replace an existing one. */
    async save(record, secrets, overwrite, alsoWrite: PendingWrite[] = []): Promise<void> {
      const put = putOf(record, secrets, overwrite);
      try {
        if (alsoWrite.length === 0) await client.send(new PutCommand(put));
        else await transactWrite(client, [{ Put: put }, ...transactItems(alsoWrite)]);
      } catch (error) {
        if (isConditionalCheckFailed(error) || failedConditions(error)?.includes(0))
          throw new ClientExistsError(record.clientId);
        throw error;
      }
    },

    /** The public record (scopes, redirect URIs), without secret hashes. */
    async get(clientId: string): Promise<ClientRecord | undefined> {
      const item = await read(clientId);
      return item ? toRecord(item) : undefined;
    },

    async getMany(clientIds: string[]): Promise<Map<string, ClientRecord>> {
      if (clientIds.length === 0) return new Map();
      const items = await batchGetAll(client, tableName, clientIds.map(keys.client));
      const records = items.filter((item) => live(item)).map(toRecord);
      return new Map(records.map((record) => [record.clientId, record]));
    },

    async getForChange(clientId: string): Promise<ClientSnapshot | undefined> {
      const item = await read(clientId);
      if (!item) return undefined;
      return {
        record: toRecord(item),
        revision: (item.revision as string | undefined) ?? "",
        ...(typeof item.registrationTokenHash === "string" && { registrationTokenHash: item.registrationTokenHash }),
        secretHash: item.secretHash as string,
      };
    },

    /** For client authentication only: the record with its secret hashes. */
    async getWithSecrets(clientId: string): Promise<(ClientRecord & ClientSecrets) | undefined> {
      const item = await read(clientId);
      if (!item) return undefined;
      return {
        ...toRecord(item),
        secretHash: item.secretHash as string,
        restPasswordHash: item.restPasswordHash as string | undefined,
      };
    },

    async list(): Promise<ClientRecord[]> {
      const items = await queryAll(client, {
        TableName: tableName,
        IndexName: gsi1.indexName,
        KeyConditionExpression: "GSI1PK = :all",
        ExpressionAttributeValues: { ":all": gsi1.allClients },
        ...PUBLIC_PROJECTION,
      });
      return items.filter((item) => live(item)).map(toRecord);
    },

    /** One Query of the index, in id order; one item more than asked tells whether others follow. */
    async page(limit: number, after?: string) {
      const { Items = [] } = await client.send(
        new QueryCommand({
          TableName: tableName,
          IndexName: gsi1.indexName,
          KeyConditionExpression: after === undefined ? "GSI1PK = :all" : "GSI1PK = :all AND GSI1SK > :after",
          ExpressionAttributeValues: {
            ":all": gsi1.allClients,
            ...(after !== undefined && { ":after": gsi1.clientSort(after) }),
          },
          ...PUBLIC_PROJECTION,
          Limit: limit + 1,
        }),
      );
      // An expired client still takes its place in the page, so `more` stays exact.
      const clients = Items.slice(0, limit);
      return { clients: clients.filter((item) => live(item)).map(toRecord), more: Items.length > limit };
    },

    async update(clientId: string, update: ClientUpdate, guard: ClientGuard, alsoWrite: PendingWrite[]) {
      const fields = Object.entries({ ...update, revision: newRevision() }).filter(([, v]) => v !== undefined);
      const parts = buildUpdate(
        Object.fromEntries(fields.filter(([, v]) => v !== "")),
        fields.filter(([, v]) => v === "").map(([name]) => name),
      );
      const condition = guardCondition(guard);
      return transactUnlessRefused(client, [
        {
          Update: {
            TableName: tableName,
            Key: keys.client(clientId),
            UpdateExpression: parts.UpdateExpression,
            ConditionExpression: condition.ConditionExpression,
            ExpressionAttributeNames: { ...parts.ExpressionAttributeNames, ...condition.names },
            ExpressionAttributeValues: { ...parts.ExpressionAttributeValues, ...condition.values },
          },
        },
        ...transactItems(alsoWrite),
      ]);
    },

    async register(record, secrets, admission, alsoWrite) {
      try {
        await transactWrite(client, [
          { Put: putOf(record, secrets, false) },
          ...transactItems([admission, ...alsoWrite]),
        ]);
        return true;
      } catch (error) {
        const failed = failedConditions(error);
        if (failed?.includes(0)) throw new ClientExistsError(record.clientId);
        if (failed?.includes(1)) return false;
        throw error;
      }
    },

    async keepAlive(clientId: string, expiresAt: number) {
      try {
        await client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.client(clientId),
            UpdateExpression: "SET expiresAt = :until",
            // Only a registered client that still exists: a deleted one must not come back as a stub.
            ConditionExpression: "attribute_exists(PK) AND attribute_exists(expiresAt)",
            ExpressionAttributeValues: { ":until": expiresAt },
          }),
        );
      } catch (error) {
        if (!isConditionalCheckFailed(error)) throw error;
      }
    },

    /** Returns false when there was no such client, or the guard failed. */
    async delete(clientId: string, guard: ClientGuard = {}, alsoWrite: PendingWrite[] = []): Promise<boolean> {
      const condition = guardCondition(guard);
      const remove = {
        TableName: tableName,
        Key: keys.client(clientId),
        // Deleting a missing client is reported, not silently accepted.
        ConditionExpression: condition.ConditionExpression,
        ...(Object.keys(condition.names).length > 0 && { ExpressionAttributeNames: condition.names }),
        ...(Object.keys(condition.values).length > 0 && { ExpressionAttributeValues: condition.values }),
      };
      if (alsoWrite.length > 0) return transactUnlessRefused(client, [{ Delete: remove }, ...transactItems(alsoWrite)]);
      try {
        await client.send(new DeleteCommand(remove));
        return true;
      } catch (error) {
        if (isConditionalCheckFailed(error)) return false;
        throw error;
      }
    },
  };
}
