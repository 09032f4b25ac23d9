import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { traced } from "../tracing";
import { storageError } from "./errors";

/**
 * DynamoDB document clients; the container's one is lib/document-client.ts. Every call they send is counted, so
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

let rcu = 0;
let wcu = 0;
let transactionWcu = 0;

/**
 * Capacity units DynamoDB reported for this process's calls so far: read units (on-demand
 * read request units), write units, and the part of those written by TransactWriteItems
 * (DynamoDB Local reports those at the standard rate, DynamoDB at twice it). A call that
 * fails reports none.
 */
export function consumedCapacity(): { rcu: number; wcu: number; transactionWcu: number } {
  return { rcu, wcu, transactionWcu };
}

const READ_COMMAND = /^(Get|BatchGet|Query|Scan|TransactGet)/;
const WRITE_COMMAND = /^(Put|Update|Delete|BatchWrite|TransactWrite)/;

interface Capacity {
  CapacityUnits?: number;
  ReadCapacityUnits?: number;
  WriteCapacityUnits?: number;
}

/** Adds one answer's ConsumedCapacity (one object, or one per table for batches and transactions). */
function addCapacity(reported: Capacity | Capacity[] | undefined, command: string, read: boolean): void {
  for (const capacity of [reported ?? []].flat()) {
    const split = capacity.ReadCapacityUnits !== undefined || capacity.WriteCapacityUnits !== undefined;
    const reads = split ? (capacity.ReadCapacityUnits ?? 0) : read ? (capacity.CapacityUnits ?? 0) : 0;
    const writes = split ? (capacity.WriteCapacityUnits ?? 0) : read ? 0 : (capacity.CapacityUnits ?? 0);
    rcu += reads;
    wcu += writes;
    if (command.startsWith("TransactWrite")) transactionWcu += writes;
  }
}

/** What every store is built with: the document client and the table. */
export interface StoreDeps {
  client: DynamoDBDocumentClient;
  tableName: string;
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
    (next, context) => async (args) => {
      roundTrips += 1;
      if (READ_COMMAND.test(context.commandName ?? "")) reads += 1;
      else if (WRITE_COMMAND.test(context.commandName ?? "")) writes += 1;
      return next(args);
    },
    { step: "initialize", name: "countRoundTrips" },
  );
  // Every data call asks for its capacity: a field of the answer, free of charge (docs/decisions/consumed-capacity.md).
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const command = context.commandName ?? "";
      const read = READ_COMMAND.test(command);
      if (!read && !WRITE_COMMAND.test(command)) return next(args);
      // A copy: the caller's input stays as it was written.
      const result = await next({ ...args, input: { ...args.input, ReturnConsumedCapacity: "TOTAL" } });
      addCapacity((result.output as { ConsumedCapacity?: Capacity | Capacity[] }).ConsumedCapacity, command, read);
      return result;
    },
    { step: "initialize", name: "countConsumedCapacity" },
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
  return DynamoDBDocumentClient.from(traced(client), {
    marshallOptions: { removeUndefinedValues: true },
  });
}
