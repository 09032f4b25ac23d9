import { randomBytes } from "node:crypto";
import { PutCommand } from "@aws-sdk/lib-dynamodb";
import type { SecurityEvent } from "../domain/audit/security-event";
import type { StoreDeps, TransactItem } from "./accounts";
import { ENTITY, itemOf, keys } from "./keys";

export function createSecurityEventStore({ client, tableName }: StoreDeps, retentionDays: number) {
  const put = (event: SecurityEvent) => ({
    TableName: tableName,
    Item: itemOf(ENTITY.securityEvent, keys.securityEvent(event.sbj, event.ts, randomBytes(6).toString("base64url")), {
      ...event,
      // TTL ends the event's retention; reads filter on ts, so a late deletion is harmless.
      expiresAt: Math.floor(event.ts / 1000) + retentionDays * 86_400,
    }),
  });
  return {
    /** The event as part of a transaction the call writes anyway. */
    putItem: (event: SecurityEvent): TransactItem => ({ Put: put(event) }),

    async record(event: SecurityEvent): Promise<void> {
      await client.send(new PutCommand(put(event)));
    },
  };
}

export type SecurityEventStore = ReturnType<typeof createSecurityEventStore>;
