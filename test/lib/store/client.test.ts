import { BatchGetCommand, GetCommand, PutCommand, QueryCommand, TransactWriteCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { config } from "../../../lib/config";
import { documentClient } from "../../../lib/store/client";
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
