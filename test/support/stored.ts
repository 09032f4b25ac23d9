import { GetCommand } from "@aws-sdk/lib-dynamodb";
import { config } from "../../lib/config";
import { documentClient } from "../../lib/store/client";
import type { TableKey } from "../../lib/store/keys";

/** One item as stored, read strongly consistent, for checking state after a write. */
export async function storedItem(key: TableKey): Promise<Record<string, unknown> | undefined> {
  const { Item } = await documentClient().send(
    new GetCommand({ TableName: config().tableName, Key: key, ConsistentRead: true }),
  );
  return Item;
}
