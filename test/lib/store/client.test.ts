import { BatchGetCommand, GetCommand, PutCommand, QueryCommand, TransactWriteCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { config } from "../../../lib/config";
import { documentClient } from "../../../lib/document-client";
import { consumedCapacity } from "../../../lib/store/client";
import { uniqueId } from "../../support/fixtures";
import { spentBy } from "../../support/round-trips";

describe("round-trip counters of the document client", () => {
  it("when reads and writes are sent, each call counts once in the total and once as its kind", async () => {
    const TableName = config().tableName;
    const PK = uniqueId("COUNT#");
    const client = documentClient();
    const { total, reads, writes } = await spentBy(async () => {
      await client.send(new PutCommand({ TableName, Item: { PK, SK: "A" } }));
      await client.send(
        new TransactWriteCommand({
          TransactItems: [{ Put: { TableName, Item: { PK, SK: "B" } } }, { Put: { TableName, Item: { PK, SK: "C" } } }],
        }),
      );
      await client.send(new GetCommand({ TableName, Key: { PK, SK: "A" } }));
      await client.send(new BatchGetCommand({ RequestItems: { [TableName]: { Keys: [{ PK, SK: "B" }] } } }));
      await client.send(
        new QueryCommand({ TableName, KeyConditionExpression: "PK = :pk", ExpressionAttributeValues: { ":pk": PK } }),
      );
    });
    expect({ total, reads, writes }).toEqual({ total: 5, reads: 3, writes: 2 });
  });
});

describe("consumed-capacity counters of the document client", () => {
  it("when a small item is put and read back, DynamoDB's reported units add up as one write unit and a read unit", async () => {
    const TableName = config().tableName;
    const PK = uniqueId("CAPACITY#");
    const client = documentClient();
    const before = consumedCapacity();
    await client.send(new PutCommand({ TableName, Item: { PK, SK: "A", note: "small" } }));
    const afterPut = consumedCapacity();
    await client.send(new GetCommand({ TableName, Key: { PK, SK: "A" }, ConsistentRead: true }));
    const afterGet = consumedCapacity();
    // Under 1 KB written: 1 WCU; under 4 KB read strongly consistent: 1 RCU.
    expect({ rcu: afterPut.rcu - before.rcu, wcu: afterPut.wcu - before.wcu }).toEqual({ rcu: 0, wcu: 1 });
    expect({ rcu: afterGet.rcu - afterPut.rcu, wcu: afterGet.wcu - afterPut.wcu }).toEqual({ rcu: 1, wcu: 0 });
  });

  it("when a transaction writes two items, their units count as writes and as a transaction's", async () => {
    const TableName = config().tableName;
    const PK = uniqueId("CAPACITY#");
    const before = consumedCapacity();
    const input = {
      TransactItems: [{ Put: { TableName, Item: { PK, SK: "B" } } }, { Put: { TableName, Item: { PK, SK: "C" } } }],
    };
    await documentClient().send(new TransactWriteCommand(input));
    const after = consumedCapacity();
    // DynamoDB Local reports one unit per small item even in a transaction; DynamoDB bills two.
    expect({ wcu: after.wcu - before.wcu, transactionWcu: after.transactionWcu - before.transactionWcu }).toEqual({
      wcu: 2,
      transactionWcu: 2,
    });
    expect(input).not.toHaveProperty("ReturnConsumedCapacity");
  });
});
