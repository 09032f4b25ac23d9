import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { config } from "./config";
import { createDocumentClient } from "./store/client";

let shared: DynamoDBDocumentClient | undefined;

/**
 * The container's one DynamoDB client, built from the configuration on first use. It lives
 * beside the wiring, not in lib/store, so the stores are handed their client and never read config.
 */
export function documentClient(): DynamoDBDocumentClient {
  shared ??= createDocumentClient({
    endpoint: config().dynamodbEndpoint,
    region: config().region,
  });
  return shared;
}
