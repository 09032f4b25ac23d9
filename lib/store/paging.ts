import { type DynamoDBDocumentClient, QueryCommand, type QueryCommandInput } from "@aws-sdk/lib-dynamodb";

type Item = Record<string, unknown>;

/**
 * Every page of a Query: DynamoDB answers at most 1 MB per call and says where to go on
 * with LastEvaluatedKey. A generator, so a caller that has enough can stop early.
 */
export async function* queryPages(client: DynamoDBDocumentClient, input: QueryCommandInput): AsyncGenerator<Item[]> {
  let startKey: Item | undefined;
  do {
    const page = await client.send(new QueryCommand({ ...input, ExclusiveStartKey: startKey }));
    yield (page.Items ?? []) as Item[];
    startKey = page.LastEvaluatedKey;
  } while (startKey);
}

export async function queryAll(client: DynamoDBDocumentClient, input: QueryCommandInput): Promise<Item[]> {
  const items: Item[] = [];
  for await (const page of queryPages(client, input)) items.push(...page);
  return items;
}
