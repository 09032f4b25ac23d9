import { GetCommand } from "@aws-sdk/lib-dynamodb";
import type { StoreDeps } from "./client";
import { keys } from "./keys";

/** Resolves once the table answers a read; throws the storage error otherwise. */
export async function tableAnswers({ client, tableName }: StoreDeps): Promise<void> {
  await client.send(new GetCommand({ TableName: tableName, Key: keys.health() }));
}
