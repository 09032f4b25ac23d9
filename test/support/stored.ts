import { GetCommand, QueryCommand } from "@aws-sdk/lib-dynamodb";
import { config } from "../../lib/config";
import { documentClient } from "../../lib/document-client";
import { keys, type TableKey } from "../../lib/store/keys";

/** One item as stored, read strongly consistent, for checking state after a write. */
export async function storedItem(key: TableKey): Promise<Record<string, unknown> | undefined> {
  const { Item } = await documentClient().send(
    new GetCommand({ TableName: config().tableName, Key: key, ConsistentRead: true }),
  );
  return Item;
}

/** The items of one account's partition under a sort-key prefix, read strongly consistent. */
export async function storedItems(sub: string, prefix: string): Promise<Record<string, unknown>[]> {
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

/** The account's stored password credential. */
export async function storedPasswordCredential(sub: string) {
  return (await storedItems(sub, "CRED#password"))[0] as never;
}

/** The security events of an application's admin API changes (interface §6, `sbjType` its), oldest first. */
export async function storedClientEvents(clientId: string): Promise<Record<string, unknown>[]> {
  const { Items } = await documentClient().send(
    new QueryCommand({
      TableName: config().tableName,
      KeyConditionExpression: "PK = :pk",
      ExpressionAttributeValues: { ":pk": keys.clientSecurityEvent(clientId, 0, "").PK },
      ConsistentRead: true,
    }),
  );
  return Items ?? [];
}
