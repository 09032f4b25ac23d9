import { GetCommand } from "@aws-sdk/lib-dynamodb";
import type { ResourceRepository } from "../domain/resources/ports";
import type { ResourceConsent, ResourceDefinition, ResourceRecord, ResourceScope } from "../domain/resources/resource";
import type { PendingWrite } from "../domain/unit-of-work";
import type { StoreDeps } from "./client";
import { ENTITY, itemOf, keys } from "./keys";
import { queryAll } from "./paging";
import { transactItems } from "./pending-writes";
import { transactUnlessRefused } from "./transact";

function toRecord(item: Record<string, unknown>): ResourceRecord {
  return {
    uri: item.uri as string,
    name: item.name as string,
    scopes: (item.scopes as ResourceScope[]) ?? [],
    consent: item.consent as ResourceConsent,
    createdAt: item.createdAt as number,
    updatedAt: item.updatedAt as number,
  };
}

/** The registered resources (RFC 8707, 9728); every change commits with its security event. */
export function createResourceStore({ client, tableName }: StoreDeps): ResourceRepository {
  const commit = (write: Record<string, unknown>, alsoWrite: PendingWrite[]) =>
    transactUnlessRefused(client, [write, ...transactItems(alsoWrite)]);
  return {
    async get(uri) {
      const { Item } = await client.send(new GetCommand({ TableName: tableName, Key: keys.resource(uri) }));
      return Item ? toRecord(Item) : undefined;
    },

    async list() {
      const items = await queryAll(client, {
        TableName: tableName,
        KeyConditionExpression: "PK = :pk",
        ExpressionAttributeValues: { ":pk": keys.resourcesPartition },
        ConsistentRead: true,
      });
      return items.map(toRecord);
    },

    create: (record, alsoWrite) =>
      commit(
        {
          Put: {
            TableName: tableName,
            Item: itemOf(ENTITY.resource, keys.resource(record.uri), record),
            // A resource is never silently replaced: its consent rule guards every client's tokens.
            ConditionExpression: "attribute_not_exists(PK)",
          },
        },
        alsoWrite,
      ),

    replace: (def: ResourceDefinition, updatedAt, alsoWrite) =>
      commit(
        {
          Update: {
            TableName: tableName,
            Key: keys.resource(def.uri),
            UpdateExpression: "SET #name = :name, scopes = :scopes, consent = :consent, updatedAt = :at",
            // A change never creates: a resource deleted meanwhile stays deleted.
            ConditionExpression: "attribute_exists(PK)",
            ExpressionAttributeNames: { "#name": "name" },
            ExpressionAttributeValues: {
              ":name": def.name,
              ":scopes": def.scopes,
              ":consent": def.consent,
              ":at": updatedAt,
            },
          },
        },
        alsoWrite,
      ),

    remove: (uri, alsoWrite) =>
      commit(
        {
          Delete: {
            TableName: tableName,
            Key: keys.resource(uri),
            // Deleting a missing resource is reported, not silently accepted.
            ConditionExpression: "attribute_exists(PK)",
          },
        },
        alsoWrite,
      ),
  };
}
