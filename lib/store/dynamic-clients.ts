import { randomBytes } from "node:crypto";
import { BatchWriteCommand } from "@aws-sdk/lib-dynamodb";
import type { DynamicClientRepository } from "../domain/clients/ports";
import type { PendingWrite } from "../domain/unit-of-work";
import type { StoreDeps } from "./client";
import { ENTITY, gsi1, itemOf, keys } from "./keys";
import { pendingWrite } from "./pending-writes";

/**
 * Dynamic client ids (`dyn~<app>~<id>`, interface §4.4): released in advance for instances of
 * a mobile application, and bound to one account at registration.
 */
export function createDynamicClientStore({ client, tableName }: StoreDeps): DynamicClientRepository {
  return {
    /** Releases `count` new free ids for `app`. */
    async release(app: string, count: number): Promise<string[]> {
      const now = Math.floor(Date.now() / 1000);
      const ids = Array.from({ length: count }, () => `dyn~${app}~${randomBytes(12).toString("base64url")}`);
      for (let i = 0; i < ids.length; i += 25) {
        let requests: Record<string, unknown>[] | undefined = ids.slice(i, i + 25).map((clientId) => ({
          PutRequest: {
            Item: itemOf(ENTITY.dynamicClient, keys.dynamicClient(clientId), {
              clientId,
              app,
              status: "free",
              releasedAt: now,
              GSI1PK: gsi1.dynamicClientsOf(app),
              GSI1SK: gsi1.dynamicClientSort(clientId),
            }),
          },
        }));
        while (requests && requests.length > 0) {
          const answer = await client.send(new BatchWriteCommand({ RequestItems: { [tableName]: requests as never } }));
          requests = answer.UnprocessedItems?.[tableName] as Record<string, unknown>[] | undefined;
        }
      }
      return ids;
    },

    /** Binds a free id to an account, inside the transaction that creates the account. */
    bindItem(clientId: string, sub: string, now: number): PendingWrite {
      return pendingWrite({
        Update: {
          TableName: tableName,
          Key: keys.dynamicClient(clientId),
          UpdateExpression: "SET #status = :bound, #sub = :sub, boundAt = :now",
          // Only a released, still free id can be bound, and only once.
          ConditionExpression: "attribute_exists(PK) AND #status = :free",
          ExpressionAttributeNames: { "#status": "status", "#sub": "sub" },
          ExpressionAttributeValues: { ":bound": "bound", ":free": "free", ":sub": sub, ":now": now },
        },
      });
    },
  };
}
