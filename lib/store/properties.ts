import { GetCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import type { Properties } from "../domain/accounts/properties";
import type { StoreDeps } from "./client";
import { isConditionalCheckFailed } from "./errors";
import { keys } from "./keys";

export interface StoredProperties {
  props: Properties;
  /** Bumped on every change, so a change is written only over the map it was made from. */
  version: number;
}

/** User properties (interface §4.11), a map on the profile item. */
export function createPropertyStore({ client, tableName }: StoreDeps) {
  return {
    /** undefined when the account does not exist. */
    async get(sub: string): Promise<StoredProperties | undefined> {
      const { Item } = await client.send(
        new GetCommand({
          TableName: tableName,
          Key: keys.userProfile(sub),
          ProjectionExpression: "PK, props, propsVersion",
          ConsistentRead: true,
        }),
      );
      if (!Item) return undefined;
      return { props: (Item.props as Properties) ?? {}, version: (Item.propsVersion as number) ?? 0 };
    },

    /** Writes the map made from `version`; false when another change came first. */
    async replace(sub: string, props: Properties, version: number): Promise<boolean> {
      try {
        await client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.userProfile(sub),
            UpdateExpression: "SET props = :props, propsVersion = :next",
            // The account exists and nobody changed the map since we read it.
            ConditionExpression:
              version === 0
                ? "attribute_exists(PK) AND attribute_not_exists(propsVersion)"
                : "attribute_exists(PK) AND propsVersion = :version",
            ExpressionAttributeValues: {
              ":props": props,
              ":next": version + 1,
              ...(version !== 0 && { ":version": version }),
            },
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

export type PropertyStore = ReturnType<typeof createPropertyStore>;
