import { ScanCommand } from "@aws-sdk/lib-dynamodb";
import { config } from "../../lib/config";
import { documentClient } from "../../lib/document-client";
import { batchWriteAll } from "../../lib/store/batch";

/** Deletes every item of the test file's table, as a lost table would be (a restore drill). */
export async function wipeTable(): Promise<number> {
  let deleted = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const page = await documentClient().send(
      new ScanCommand({ TableName: config().tableName, ProjectionExpression: "PK, SK", ExclusiveStartKey: start }),
    );
    const requests = (page.Items ?? []).map((item) => ({
      DeleteRequest: { Key: { PK: item.PK as string, SK: item.SK as string } },
    }));
    if (requests.length > 0) await batchWriteAll(documentClient(), config().tableName, requests);
    deleted += requests.length;
    start = page.LastEvaluatedKey;
  } while (start);
  return deleted;
}
