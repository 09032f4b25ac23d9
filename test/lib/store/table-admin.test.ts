import { CreateTableCommand, DescribeTableCommand, DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { afterAll, describe, expect, it } from "vitest";
import { config } from "../../../lib/config";
import { ensureTable } from "../../../lib/store/table-admin";
import { uniqueId } from "../../support/fixtures";

const admin = new DynamoDBClient({
  endpoint: `http://127.0.0.1:${config().dynamodbPort}`,
  region: config().region,
  credentials: { accessKeyId: "local", secretAccessKey: "local" },
});
afterAll(() => admin.destroy());

const streamOf = async (name: string) =>
  (await admin.send(new DescribeTableCommand({ TableName: name }))).Table?.StreamSpecification;

describe("the local table", () => {
  it("when it is created, it streams new and old images (the event stream's source)", async () => {
    const name = uniqueId("tbl-");
    expect(await ensureTable(admin, name, { stream: true })).toBe("created");
    expect(await streamOf(name)).toEqual({ StreamEnabled: true, StreamViewType: "NEW_AND_OLD_IMAGES" });
  });

  it("when it was made before the stream existed, the next start turns the stream on and keeps the table", async () => {
    const name = uniqueId("tbl-");
    await admin.send(
      new CreateTableCommand({
        TableName: name,
        BillingMode: "PAY_PER_REQUEST",
        AttributeDefinitions: [
          { AttributeName: "PK", AttributeType: "S" },
          { AttributeName: "SK", AttributeType: "S" },
        ],
        KeySchema: [
          { AttributeName: "PK", KeyType: "HASH" },
          { AttributeName: "SK", KeyType: "RANGE" },
        ],
      }),
    );
    expect(await streamOf(name)).toBeUndefined();
    expect(await ensureTable(admin, name, { stream: true })).toBe("exists");
    expect(await streamOf(name)).toEqual({ StreamEnabled: true, StreamViewType: "NEW_AND_OLD_IMAGES" });
    expect(await ensureTable(admin, name, { stream: true })).toBe("exists");
  });

  it("when two processes turn the stream on at once, both go on", async () => {
    const name = uniqueId("tbl-");
    await ensureTable(admin, name, { stream: false });
    const results = await Promise.all(Array.from({ length: 4 }, () => ensureTable(admin, name, { stream: true })));
    expect(results).toEqual(["exists", "exists", "exists", "exists"]);
    expect(await streamOf(name)).toEqual({ StreamEnabled: true, StreamViewType: "NEW_AND_OLD_IMAGES" });
  });

  it("when a test's table is made without a stream, it has none (the suite reads streams only where it tests them)", async () => {
    const name = uniqueId("tbl-");
    expect(await ensureTable(admin, name, { stream: false })).toBe("created");
    expect(await streamOf(name)).toBeUndefined();
  });
});
