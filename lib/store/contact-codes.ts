import type { ContactCodeCaps, ContactCodeLimits, ContactField } from "../domain/accounts/ports";
import type { StoreDeps } from "./client";
import { countedInHour, HOUR_SECONDS } from "./hourly-count";
import { ENTITY, keys, SCHEMA_VERSION, type TableKey } from "./keys";
import { transactUnlessRefused } from "./transact";

// Conditions, named so each write says why it may fail.
/** The address's last code is older than the cool-down (TTL deletion lags, so the time decides). */
const cooledDown = "attribute_not_exists(lastSentAt) OR lastSentAt <= :cooled";

/**
 * Contact-change codes counted per account and per address, each per hour, in one
 * transaction taken before the code leaves: racing requests cannot send more than the caps.
 */
export function createContactCodeStore({ client, tableName }: StoreDeps): ContactCodeLimits {
  const counted = (key: TableKey, entity: string, max: number, hour: number) => ({
    Update: countedInHour(tableName, key, entity, max, hour),
  });

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
