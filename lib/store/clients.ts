import { DeleteCommand, GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import { type ClientRecord, type ClientSecrets, LEGACY_GRANT_TYPES } from "../domain/clients/client";
import { ClientExistsError, type ClientRepository } from "../domain/clients/ports";
import type { StoreDeps } from "./accounts";
import { isConditionalCheckFailed } from "./errors";
import { ENTITY, gsi1, itemOf, keys } from "./keys";
import { queryAll } from "./paging";

const PUBLIC_FIELDS = [
  "clientId",
  "scopes",
  "redirectUris",
  "hasRestPassword",
  "public",
  "grantTypes",
  "postLogoutRedirectUris",
  "resources",
  "firstParty",
  "createdAt",
  "updatedAt",
];

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
    firstParty: Boolean(item.firstParty),
    createdAt: item.createdAt as number,
    updatedAt: item.updatedAt as number,
  };
}

/** Applications (OAuth clients). Secret hashes are read only by `getWithSecrets`. */
export function createClientStore({ client, tableName }: StoreDeps): ClientRepository {
  return {
    /** Writes a client; `overwrite` false refuses to replace an existing one. */
    async save(record: ClientRecord, secrets: ClientSecrets, overwrite: boolean): Promise<void> {
      const item = itemOf(ENTITY.client, keys.client(record.clientId), {
        ...record,
        ...secrets,
        GSI1PK: gsi1.allClients,
        GSI1SK: gsi1.clientSort(record.clientId),
      });
      try {
        await client.send(
          new PutCommand({
            TableName: tableName,
            Item: item,
            // A new client must not silently replace another application's credentials.
            ConditionExpression: overwrite ? undefined : "attribute_not_exists(PK)",
          }),
        );
      } catch (error) {
        if (isConditionalCheckFailed(error)) throw new ClientExistsError(record.clientId);
        throw error;
      }
    },

    /** The public record (scopes, redirect URIs), without secret hashes. */
    async get(clientId: string): Promise<ClientRecord | undefined> {
      const { Item } = await client.send(
        new GetCommand({ TableName: tableName, Key: keys.client(clientId), ConsistentRead: true }),
      );
      return Item ? toRecord(Item) : undefined;
    },

    /** For client authentication only: the record with its secret hashes. */
    async getWithSecrets(clientId: string): Promise<(ClientRecord & ClientSecrets) | undefined> {
      const { Item } = await client.send(
        new GetCommand({ TableName: tableName, Key: keys.client(clientId), ConsistentRead: true }),
      );
      if (!Item) return undefined;
      return {
        ...toRecord(Item),
        secretHash: Item.secretHash as string,
        restPasswordHash: Item.restPasswordHash as string | undefined,
      };
    },

    async list(): Promise<ClientRecord[]> {
      const items = await queryAll(client, {
        TableName: tableName,
        IndexName: gsi1.indexName,
        KeyConditionExpression: "GSI1PK = :all",
        ExpressionAttributeValues: { ":all": gsi1.allClients },
        // Names, not words: "public" and others are DynamoDB reserved words.
        ProjectionExpression: PUBLIC_FIELDS.map((_, i) => `#f${i}`).join(", "),
        ExpressionAttributeNames: Object.fromEntries(PUBLIC_FIELDS.map((field, i) => [`#f${i}`, field])),
      });
      return items.map(toRecord);
    },

    /** Returns false when there was no such client. */
    async delete(clientId: string): Promise<boolean> {
      try {
        await client.send(
          new DeleteCommand({
            TableName: tableName,
            Key: keys.client(clientId),
            // Deleting a missing client is reported, not silently accepted.
            ConditionExpression: "attribute_exists(PK)",
          }),
        );
        return true;
      } catch (error) {
        if (isConditionalCheckFailed(error)) return false;
        throw error;
      }
    },
  };
}
