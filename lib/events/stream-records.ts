import type { AttributeValue } from "@aws-sdk/client-dynamodb";
import { unmarshall } from "@aws-sdk/util-dynamodb";
import type { DynamoDBRecord } from "aws-lambda";
import type { ChangeRecord, Item } from "./mapping";

/** DynamoDB deletes an expired item (TTL) as this principal. */
const TTL_PRINCIPAL = "dynamodb.amazonaws.com";

/** A stream record as Lambda passes it -> the mapping's plain change (images unmarshalled). */
export function changeOf(record: DynamoDBRecord): ChangeRecord {
  const stream = record.dynamodb ?? {};
  const kind = record.eventName;
  if (kind !== "INSERT" && kind !== "MODIFY" && kind !== "REMOVE") {
    throw new Error(`stream record ${record.eventID} has no event name`);
  }
  return {
    id: record.eventID ?? "",
    sequence: stream.SequenceNumber ?? "",
    kind,
    at: (stream.ApproximateCreationDateTime ?? Date.now() / 1000) * 1000,
    expired: record.userIdentity?.type === "Service" && record.userIdentity.principalId === TTL_PRINCIPAL,
    ...(stream.OldImage && { oldImage: imageOf(stream.OldImage) }),
    ...(stream.NewImage && { newImage: imageOf(stream.NewImage) }),
  };
}

function imageOf(image: NonNullable<NonNullable<DynamoDBRecord["dynamodb"]>["NewImage"]>): Item {
  // Lambda's attribute values are the SDK's wire format under another type name.
  return unmarshall(image as Record<string, AttributeValue>);
}
