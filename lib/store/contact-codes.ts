import type { ContactCodeCaps, ContactCodeLimits, ContactField } from "../domain/accounts/ports";
import type { StoreDeps } from "./client";
import { ENTITY, keys, SCHEMA_VERSION } from "./keys";
import { transactUnlessRefused } from "./transact";

// Conditions, named so each write says why it may fail.
/** Under the hour's cap. */
const underCap = "attribute_not_exists(#count) OR #count < :max";
/** The address's last code is older than the cool-down (TTL deletion lags, so the time decides). */
const cooledDown = "attribute_not_exists(lastSentAt) OR lastSentAt <= :cooled";

const HOUR_SECONDS = 3600;

/**
 * Contact-change codes counted per account and per address, each per hour, in one
 * transaction taken before the code leaves: racing requests cannot send more than the caps.
 */
export function createContactCodeStore({ client, tableName }: StoreDeps): ContactCodeLimits {
  function counted(key: { PK: string; SK: string }, entity: string, max: number, hour: number) {
    return {
      Update: {
        TableName: tableName,
        Key: key,
        UpdateExpression: "SET entity = :entity, schemaVersion = :v, expiresAt = :expires ADD #count :one",
        ConditionExpression: underCap,
        ExpressionAttributeNames: { "#count": "count" },
        ExpressionAttributeValues: {
          ":entity": entity,
          ":v": SCHEMA_VERSION,
          ":expires": (hour + 1) * HOUR_SECONDS,
          ":one": 1,
          ":max": max,
        },
      },
    };
  }

  return {
    async takeSend(sub: string, field: ContactField, value: string, now: number, caps: ContactCodeCaps) {
      const hour = Math.floor(now / HOUR_SECONDS);
      const lastCode = {
        Update: {
          TableName: tableName,
          Key: keys.contactAddressLastCode(field, value),
          UpdateExpression: "SET entity = :entity, schemaVersion = :v, lastSentAt = :now, expiresAt = :expires",
          ConditionExpression: cooledDown,
          ExpressionAttributeValues: {
            ":entity": ENTITY.contactAddressLastCode,
            ":v": SCHEMA_VERSION,
            ":now": now,
            ":cooled": now - caps.coolDownSeconds,
            ":expires": now + caps.coolDownSeconds,
          },
        },
      };
      // A retry after a lost answer counts again: it errs towards fewer codes, never more.
      return transactUnlessRefused(client, [
        counted(keys.contactCodesSent(sub, hour), ENTITY.contactCodesSent, caps.perAccountPerHour, hour),
        counted(
          keys.contactAddressCodesSent(field, value, hour),
          ENTITY.contactAddressCodesSent,
          caps.perAddressPerHour,
          hour,
        ),
        lastCode,
      ]);
    },
  };
}
