import { GetCommand } from "@aws-sdk/lib-dynamodb";
import { config } from "../config";
import { documentClient } from "./client";
import { keys } from "./keys";

/** Resolves once the table answers a read; throws the storage error otherwise. */
export async function storageAnswers(): Promise<void> {
  await documentClient().send(new GetCommand({ TableName: config().tableName, Key: keys.health() }));
}
