import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { config } from "../config";
import { storageError } from "./errors";

/**
 * One DynamoDB document client per container. Every call it sends is counted, so
 * tests and benchmarks can assert the round trips a request costs (docs/architecture.md).
 */

let roundTrips = 0;
let reads = 0;
let writes = 0;

/** DynamoDB calls sent by this process so far. */
export function roundTripCount(): number {
  return roundTrips;
}

/**
 * The same calls split as docs/performance.md's targets count them: reads (GetItem, BatchGetItem,
 * Query, Scan, TransactGetItems) and writes (PutItem, UpdateItem, DeleteItem,
 * BatchWriteItem, TransactWriteItems). Table administration is in neither.
 */
export function roundTripKinds(): { reads: number; writes: number } {
  return { reads, writes };
}

const READ_COMMAND = /^(Get|BatchGet|Query|Scan|TransactGet)/;
const WRITE_COMMAND = /^(Put|Update|Delete|BatchWrite|TransactWrite)/;

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
    (next, context) => async (args) => {
      roundTrips += 1;
      if (READ_COMMAND.test(context.commandName ?? "")) reads += 1;
      else if (WRITE_COMMAND.test(context.commandName ?? "")) writes += 1;
      return next(args);
    },
    { step: "initialize", name: "countRoundTrips" },
  );
  // Outermost, so every failure leaves the store as the domain's error, after the SDK's retries.
  client.middlewareStack.add(
    (next, context) => async (args) => {
      try {
        return await next(args);
      } catch (error) {
        throw storageError(error, context.commandName === "TransactWriteItemsCommand");
      }
    },
    { step: "initialize", name: "storageUnavailable", priority: "high" },
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
