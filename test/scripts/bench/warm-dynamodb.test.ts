import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ScanCommand } from "@aws-sdk/lib-dynamodb";
import { beforeAll, describe, expect, it } from "vitest";
import { config } from "../../../lib/config";
import { documentClient } from "../../../lib/document-client";
import { roundTripCount } from "../../../lib/store/client";
import { type OperationWarmth, warmDynamoLocal } from "../../../scripts/bench/warm-dynamodb";

/** The DynamoDB operation behind each document-client command the store may send. */
const OPERATION_OF: Record<string, string> = {
  GetCommand: "GetItem",
  PutCommand: "PutItem",
  UpdateCommand: "UpdateItem",
  DeleteCommand: "DeleteItem",
  QueryCommand: "Query",
  ScanCommand: "Scan",
  BatchGetCommand: "BatchGetItem",
  BatchWriteCommand: "BatchWriteItem",
  TransactWriteCommand: "TransactWriteItems",
  TransactGetCommand: "TransactGetItems",
};

/** Operations the functions send, read from lib/store's sources. */
function storeOperations(): Set<string> {
  const found = new Set<string>();
  for (const file of readdirSync("lib/store").filter((name) => name.endsWith(".ts"))) {
    const source = readFileSync(join("lib/store", file), "utf8");
    for (const [, command] of source.matchAll(/new (\w+Command)\(/g)) {
      if (OPERATION_OF[command]) found.add(OPERATION_OF[command]);
    }
  }
  return found;
}

const ROUNDS = 12;
let warmth: OperationWarmth[] = [];
let calls = 0;

beforeAll(async () => {
  const before = roundTripCount();
  warmth = await warmDynamoLocal(documentClient(), config().tableName, ROUNDS);
  calls = roundTripCount() - before;
}, 60_000);

describe("DynamoDB Local warm-up before cold starts (scripts/bench/warm-dynamodb.ts)", () => {
  it("when it runs, every operation the store sends is warmed, GSI1 queries too", () => {
    const warmed = new Set(warmth.map((w) => w.operation));
    expect([...storeOperations()].filter((operation) => !warmed.has(operation))).toEqual([]);
    expect(warmed).toContain("Query (GSI1)");
  });

  it("when it runs, each operation reaches DynamoDB Local once per round and is timed", () => {
    expect(calls).toBe(ROUNDS * warmth.length);
    for (const w of warmth) {
      expect(w.freshMs).toBeGreaterThan(0);
      expect(w.warmMs).toBeGreaterThan(0);
    }
  });

  it("when it is done, none of its scratch items is left in the table", async () => {
    const left = await documentClient().send(
      new ScanCommand({
        TableName: config().tableName,
        FilterExpression: "begins_with(PK, :scratch)",
        ExpressionAttributeValues: { ":scratch": "BENCH-WARM#" },
        ConsistentRead: true,
      }),
    );
    expect(left.Items).toEqual([]);
  });
});
