import { QueryCommand } from "@aws-sdk/lib-dynamodb";
import { config } from "../../lib/config";
import { documentClient } from "../../lib/store/client";
import { keys } from "../../lib/store/keys";

/** The items of an account's collection whose sort key starts with `prefix` (SESSION#, DEVICE#, EVENT#, ...). */
export async function userItems(sub: string, prefix: string): Promise<Record<string, unknown>[]> {
  const { Items } = await documentClient().send(
    new QueryCommand({
      TableName: config().tableName,
      KeyConditionExpression: "PK = :pk AND begins_with(SK, :p)",
      ExpressionAttributeValues: { ":pk": keys.userPartition(sub), ":p": prefix },
      ConsistentRead: true,
    }),
  );
  return Items ?? [];
}
