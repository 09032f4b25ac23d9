import { DeleteCommand, GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import type { RightDefinition } from "../domain/rights/catalogue";
import type { PartyKind } from "../domain/rights/parties";
import { RightDefinitionExistsError, type RightDefinitionRepository } from "../domain/rights/ports";
import type { StoreDeps } from "./client";
import { isConditionalCheckFailed } from "./errors";
import { ENTITY, itemOf, keys } from "./keys";
import { queryAll } from "./paging";

function toDefinition(item: Record<string, unknown>): RightDefinition {
  return {
    name: item.name as string,
    description: (item.description as string) ?? "",
    subjectTypes: (item.subjectTypes as PartyKind[]) ?? [],
    objectTypes: (item.objectTypes as PartyKind[]) ?? [],
    builtin: false,
  };
}

/**
 * Stored entries of the rights catalogue; the built-in ones live in code
 * (lib/domain/rights/catalogue.ts). Kinds are stored as lists so a rights transaction
 * can check them with `contains`.
 */
export function createRightDefinitionStore({ client, tableName }: StoreDeps): RightDefinitionRepository {
  return {
    async list(): Promise<RightDefinition[]> {
      const items = await queryAll(client, {
        TableName: tableName,
        KeyConditionExpression: "PK = :pk",
        ExpressionAttributeValues: { ":pk": keys.rightDefinitionsPartition },
        ConsistentRead: true,
      });
      return items.map(toDefinition);
    },

    async get(name: string): Promise<RightDefinition | undefined> {
      const { Item } = await client.send(
        new GetCommand({ TableName: tableName, Key: keys.rightDefinition(name), ConsistentRead: true }),
      );
      return Item ? toDefinition(Item) : undefined;
    },

    async create(definition: RightDefinition, now: number): Promise<void> {
      const { builtin: _builtin, ...stored } = definition;
      try {
        await client.send(
          new PutCommand({
            TableName: tableName,
            Item: itemOf(ENTITY.rightDefinition, keys.rightDefinition(definition.name), { ...stored, createdAt: now }),
            // A definition is never silently replaced: its kinds guard existing callers.
            ConditionExpression: "attribute_not_exists(PK)",
          }),
        );
      } catch (error) {
        if (isConditionalCheckFailed(error)) throw new RightDefinitionExistsError(definition.name);
        throw error;
      }
    },

    /** False when there was no such definition. */
    async delete(name: string): Promise<boolean> {
      try {
        await client.send(
          new DeleteCommand({
            TableName: tableName,
            Key: keys.rightDefinition(name),
            // Deleting a missing definition is reported, not silently accepted.
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
