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
 * Creates the single table when it is missing (local stack and tests; CDK does it on AWS),
 * with its stream; a table made before the event stream existed gets the stream turned on.
 */
export async function ensureTable(client: DynamoDBClient, tableName: string): Promise<"created" | "exists"> {
  try {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    if (!Table?.StreamSpecification?.StreamEnabled) {
      await client.send(new UpdateTableCommand({ TableName: tableName, StreamSpecification: STREAM }));
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
        StreamSpecification: STREAM,
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
