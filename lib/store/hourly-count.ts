import { SCHEMA_VERSION, type TableKey } from "./keys";

/**
 * Counters of sends per hour (codes, notices): one item per key and hour, counted up under a
 * cap before the message leaves, so racing requests cannot send more than it allows.
 */

export const HOUR_SECONDS = 3600;

/** The hour's cap: an Update (for a transaction or on its own) refused once `max` are counted. */
export function countedInHour(tableName: string, key: TableKey, entity: string, max: number, hour: number) {
  return {
    TableName: tableName,
    Key: key,
    UpdateExpression: "SET entity = :entity, schemaVersion = :v, expiresAt = :expires ADD #count :one",
    ConditionExpression: "attribute_not_exists(#count) OR #count < :max",
    ExpressionAttributeNames: { "#count": "count" },
    ExpressionAttributeValues: {
      ":entity": entity,
      ":v": SCHEMA_VERSION,
      ":expires": (hour + 1) * HOUR_SECONDS,
      ":one": 1,
      ":max": max,
    },
  };
}
