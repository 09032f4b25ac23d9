import { randomBytes } from "node:crypto";
import { PutCommand } from "@aws-sdk/lib-dynamodb";
import type { SecurityEventLog } from "../domain/audit/ports";
import type { SecurityEvent } from "../domain/audit/security-event";
import type { StoreDeps } from "./client";
import { ENTITY, itemOf, keys } from "./keys";
import { queryPages } from "./paging";
import { pendingWrite } from "./pending-writes";

export function createSecurityEventStore({ client, tableName }: StoreDeps, retentionDays: number): SecurityEventLog {
  const keyOf = (event: SecurityEvent) => {
    const id = randomBytes(6).toString("base64url");
    return event.sbjType === "its"
      ? keys.clientSecurityEvent(event.sbj, event.ts, id)
      : keys.securityEvent(event.sbj, event.ts, id);
  };
  const put = (event: SecurityEvent) => ({
    TableName: tableName,
    Item: itemOf(ENTITY.securityEvent, keyOf(event), {
      ...event,
      // TTL ends the event's retention; reads filter on ts, so a late deletion is harmless.
      expiresAt: Math.floor(event.ts / 1000) + retentionDays * 86_400,
    }),
  });
  return {
    /** The event as part of a transaction the call writes anyway. */
    putItem: (event: SecurityEvent) => pendingWrite({ Put: put(event) }),

    async record(event: SecurityEvent): Promise<void> {
      await client.send(new PutCommand(put(event)));
    },

    /** Events of [from, to] in ms, newest first: one range query on the sort key, never a scan. */
    async list(sub: string, from: number, to: number, limit: number): Promise<SecurityEvent[]> {
      const found: SecurityEvent[] = [];
      for await (const page of queryPages(client, {
        TableName: tableName,
        KeyConditionExpression: "PK = :pk AND SK BETWEEN :from AND :to",
        ExpressionAttributeValues: {
          ":pk": keys.userPartition(sub),
          ":from": keys.eventSortAt(from),
          // Every SK of ts = to sorts below the next millisecond's prefix.
          ":to": keys.eventSortAt(to + 1),
        },
        ScanIndexForward: false,
        Limit: limit,
      })) {
        for (const item of page) {
          const { sbj, ts, type, cId, ip, ua, sid, result, prms } = item;
          if ((ts as number) >= from && (ts as number) <= to)
            found.push({ sbj, ts, type, cId, ip, ua, sid, result, prms } as SecurityEvent);
          if (found.length >= limit) return found;
        }
      }
      return found;
    },
  };
}
