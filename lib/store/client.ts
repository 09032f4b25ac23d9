import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { config } from "../config";

/**
 * One DynamoDB document client per container. Every call it sends is counted, so
 * tests and benchmarks can assert the round trips a request costs (DESIGN 5).
 */

let roundTrips = 0;

/** DynamoDB calls sent by this process so far. */
export function roundTripCount(): number {
  return roundTrips;
}

export interface DynamoSettings {
  endpoint?: string;
  region: string;
}

export function createDocumentClient(settings: DynamoSettings): DynamoDBDocumentClient {
  const local = settings.endpoint !== undefined;
  const client = new DynamoDBClient({
    region: settings.region,
    endpoint: settings.endpoint,
    // DynamoDB Local accepts any credentials; fixed ones keep local tools off the AWS chain.
    credentials: local ? { accessKeyId: "local", secretAccessKey: "local" } : undefined,
    // A dead DynamoDB must give a prompt 503, not a request hanging until the Lambda timeout.
    requestHandler: { connectionTimeout: 1000, requestTimeout: 3000 },
    maxAttempts: 3,
  });
  client.middlewareStack.add(
    (next) => async (args) => {
      roundTrips += 1;
      return next(args);
    },
    { step: "initialize", name: "countRoundTrips" },
  );
  return DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true },
  });
}

let shared: DynamoDBDocumentClient | undefined;

export function documentClient(): DynamoDBDocumentClient {
  shared ??= createDocumentClient({
    endpoint: config().dynamodbEndpoint,
    region: config().region,
  });
  return shared;
}
