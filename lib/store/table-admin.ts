import {
  CreateTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  ResourceInUseException,
  ResourceNotFoundException,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
} from "@aws-sdk/client-dynamodb";
import { TABLE } from "./table-definition";

const STREAM = { StreamEnabled: true, StreamViewType: TABLE.streamView } as const;

/**
 * Creates the single table when it is missing (local stack and tests; CDK does it on AWS).
 * With `stream`, the table streams its changes, and one made without gets the stream turned
 * on. Tests leave it off unless they read it: DynamoDB Local keeps every stream record of
 * every table for a day, and the suite ran three times as long with a stream on each.
 */
export async function ensureTable(
  client: DynamoDBClient,
  tableName: string,
  { stream }: { stream: boolean },
): Promise<"created" | "exists"> {
  try {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    if (stream && !Table?.StreamSpecification?.StreamEnabled) {
      await client
        .send(new UpdateTableCommand({ TableName: tableName, StreamSpecification: STREAM }))
        .catch((error: Error) => {
          // Another process (two svc-admin runs at once) turned it on between our describe and update.
          if (!/already has an enabled stream/i.test(error.message)) throw error;
        });
    }
    return "exists";
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException)) throw error;
  }
  try {
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: "PAY_PER_REQUEST",
        ...(stream && { StreamSpecification: STREAM }),
        AttributeDefinitions: [
          { AttributeName: TABLE.partitionKey, AttributeType: "S" },
          { AttributeName: TABLE.sortKey, AttributeType: "S" },
          { AttributeName: TABLE.gsi1.partitionKey, AttributeType: "S" },
          { AttributeName: TABLE.gsi1.sortKey, AttributeType: "S" },
        ],
        KeySchema: [
          { AttributeName: TABLE.partitionKey, KeyType: "HASH" },
          { AttributeName: TABLE.sortKey, KeyType: "RANGE" },
        ],
        GlobalSecondaryIndexes: [
          {
            IndexName: TABLE.gsi1.name,
            KeySchema: [
              { AttributeName: TABLE.gsi1.partitionKey, KeyType: "HASH" },
              { AttributeName: TABLE.gsi1.sortKey, KeyType: "RANGE" },
            ],
            Projection: { ProjectionType: "ALL" },
          },
        ],
      }),
    );
  } catch (error) {
    // Another process created it between our describe and create: that is fine.
    if (error instanceof ResourceInUseException) return "exists";
    throw error;
  }
  await client.send(
    new UpdateTimeToLiveCommand({
      TableName: tableName,
      TimeToLiveSpecification: { AttributeName: TABLE.ttlAttribute, Enabled: true },
    }),
  );
  return "created";
}
