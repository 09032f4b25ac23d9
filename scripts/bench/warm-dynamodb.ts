import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  TransactWriteCommand,
  UpdateCommand,
} from "@aws-sdk/lib-dynamodb";
import { TABLE } from "../../lib/store/table-definition";

/**
 * DynamoDB Local is a JVM: an operation's code path answers several times slower until it
 * has run a few hundred times and been compiled. DynamoDB itself is always warm. In the
 * cold-start part the floor's GetItem runs twice a round and warms its own path, while a
 * function's Query, BatchGetItem or TransactWriteItems would meet a colder one, so the
 * ratios would charge the functions for the emulator's warm-up. Every operation the store
 * uses runs here first, on scratch items of their own partitions, removed at the end.
 */

/** Scratch partitions: no entity of lib/store/keys.ts starts so. */
const SCRATCH = "BENCH-WARM#";

/** Operations at once: enough to keep DynamoDB Local busy, few enough to leave a core. */
const IN_FLIGHT = 2;

export interface OperationWarmth {
  operation: string;
  /** Median of the first runs, on a fresh path. */
  freshMs: number;
  /** Median of the last runs. */
  warmMs: number;
}

type Operation = (round: number) => Promise<unknown>;

function operations(client: DynamoDBDocumentClient, tableName: string): Record<string, Operation> {
  // One scratch partition per round, items A (with GSI1 keys), B and C in it.
  const pk = (round: number) => `${SCRATCH}${round}`;
  const key = (round: number, sort: "A" | "B" | "C") => ({ PK: pk(round), SK: sort });
  const gsi = (round: number) => ({
    [TABLE.gsi1.partitionKey]: `${SCRATCH}${round % 16}`,
    [TABLE.gsi1.sortKey]: String(round),
  });
  return {
    PutItem: (round) =>
      client.send(new PutCommand({ TableName: tableName, Item: { ...key(round, "A"), ...gsi(round), round } })),
    GetItem: (round) => client.send(new GetCommand({ TableName: tableName, Key: key(round, "A") })),
    UpdateItem: (round) =>
      client.send(
        new UpdateCommand({
          TableName: tableName,
          Key: key(round, "A"),
          // A conditional counter update, the store's most common write.
          UpdateExpression: "ADD hits :one",
          ConditionExpression: "attribute_exists(PK)",
          ExpressionAttributeValues: { ":one": 1 },
        }),
      ),
    Query: (round) =>
      client.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: "PK = :pk AND begins_with(SK, :sk)",
          ExpressionAttributeValues: { ":pk": pk(round), ":sk": "A" },
        }),
      ),
    "Query (GSI1)": (round) =>
      client.send(
        new QueryCommand({
          TableName: tableName,
          IndexName: TABLE.gsi1.name,
          KeyConditionExpression: `${TABLE.gsi1.partitionKey} = :pk`,
          ExpressionAttributeValues: { ":pk": `${SCRATCH}${round % 16}` },
          Limit: 5,
        }),
      ),
    // The user export's parallel Scan (svc-admin); a few items are enough to warm its path.
    Scan: (round) =>
      client.send(new ScanCommand({ TableName: tableName, Segment: round % 2, TotalSegments: 2, Limit: 5 })),
    BatchGetItem: (round) =>
      client.send(
        new BatchGetCommand({
          RequestItems: {
            [tableName]: {
              Keys: [key(round, "A"), key(round, "B")],
            },
          },
        }),
      ),
    TransactWriteItems: (round) =>
      client.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName: tableName,
                Item: { ...key(round, "B"), round },
                ConditionExpression: "attribute_not_exists(PK)",
              },
            },
            {
              Update: {
                TableName: tableName,
                Key: key(round, "A"),
                UpdateExpression: "SET changed = :round",
                ExpressionAttributeValues: { ":round": round },
              },
            },
            { Put: { TableName: tableName, Item: { ...key(round, "C"), round } } },
          ],
        }),
      ),
    BatchWriteItem: (round) =>
      client.send(
        new BatchWriteCommand({
          RequestItems: {
            [tableName]: [{ DeleteRequest: { Key: key(round, "B") } }, { DeleteRequest: { Key: key(round, "C") } }],
          },
        }),
      ),
    DeleteItem: (round) => client.send(new DeleteCommand({ TableName: tableName, Key: key(round, "A") })),
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** How many runs the fresh and warm medians are taken over. */
const SAMPLED = 9;

/**
 * Runs each operation the store uses `rounds` times, in the order that leaves nothing behind
 * (every round's items are deleted by its last two operations), and says how much faster
 * each one answers at the end than at the start.
 */
export async function warmDynamoLocal(
  client: DynamoDBDocumentClient,
  tableName: string,
  rounds: number,
): Promise<OperationWarmth[]> {
  const all = operations(client, tableName);
  const timings = new Map<string, number[]>(Object.keys(all).map((name) => [name, []]));
  let next = 0;
  const worker = async () => {
    for (let round = next++; round < rounds; round = next++) {
      for (const [name, operation] of Object.entries(all)) {
        const started = performance.now();
        await operation(round);
        timings.get(name)?.push(performance.now() - started);
      }
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  return [...timings].map(([operation, times]) => ({
    operation,
    freshMs: median(times.slice(0, SAMPLED)),
    warmMs: median(times.slice(-SAMPLED)),
  }));
}
