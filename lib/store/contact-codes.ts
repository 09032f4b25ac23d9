import type { ContactCodeCaps, ContactCodeLimits, ContactField } from "../domain/accounts/ports";
import type { StoreDeps } from "./accounts";
import { ENTITY, keys, SCHEMA_VERSION } from "./keys";
import { transactUnlessRefused } from "./transact";

// Conditions, named so each write says why it may fail.
/** Under the hour's cap. */
const underCap = "(attribute_not_exists(#count) OR #count < :max)";
/** The address's last code is older than the cool-down. */
const cooledDown = "(attribute_not_exists(lastSentAt) OR lastSentAt <= :cooled)";

const HOUR_SECONDS = 3600;

/**
 * Contact-change codes counted per account and per address, each per hour, in one
 * transaction taken before the code leaves: racing requests cannot send more than the caps.
 */
export function createContactCodeStore({ client, tableName }: StoreDeps): ContactCodeLimits {
  function counted(key: { PK: string; SK: string }, entity: string, max: number, hour: number, extra = "") {
    return {
      Update: {
        TableName: tableName,
        Key: key,
        UpdateExpression: `SET entity = :entity, schemaVersion = :v, expiresAt = :expires${extra} ADD #count :one`,
        ExpressionAttributeNames: { "#count": "count" },
        ExpressionAttributeValues: {
          ":entity": entity,
          ":v": SCHEMA_VERSION,
          ":expires": (hour + 1) * HOUR_SECONDS,
          ":one": 1,
          ":max": max,
        } as Record<string, unknown>,
        ConditionExpression: underCap,
      },
    };
  }

  return {
    async takeSend(sub: string, field: ContactField, value: string, now: number, caps: ContactCodeCaps) {
      const hour = Math.floor(now / HOUR_SECONDS);
      const byAccount = counted(
        keys.contactCodesSent(sub, hour),
        ENTITY.contactCodesSent,
        caps.perAccountPerHour,
        hour,
      );
      const byAddress = counted(
        keys.contactAddressCodesSent(field, value, hour),
        ENTITY.contactAddressCodesSent,
        caps.perAddressPerHour,
        hour,
        ", lastSentAt = :now",
      );
      byAddress.Update.ConditionExpression = `${underCap} AND ${cooledDown}`;
      byAddress.Update.ExpressionAttributeValues[":now"] = now;
      byAddress.Update.ExpressionAttributeValues[":cooled"] = now - caps.coolDownSeconds;
      // A retry after a lost answer counts again: it errs towards fewer codes, never more.
      return transactUnlessRefused(client, [byAccount, byAddress]);
    },
  };
}
