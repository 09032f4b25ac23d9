import { createHash } from "node:crypto";
import { DeleteCommand } from "@aws-sdk/lib-dynamodb";
import type { Consent, ConsentRepository } from "../domain/sessions/ports";
import type { PendingWrite } from "../domain/unit-of-work";
import type { StoreDeps } from "./client";
import { ENTITY, keys } from "./keys";
import { queryAll } from "./paging";
import { pendingWrite } from "./pending-writes";

/** A path-safe id for one application's consent, whatever characters its client id has. */
export function consentId(clientId: string): string {
  return createHash("sha256").update(clientId).digest("base64url").slice(0, 22);
}

/** Consents (acls): what each application was granted by the user through logins. */
export function createConsentStore({ client, tableName }: StoreDeps): ConsentRepository {
  return {
    /** For the login transaction: adds the scopes to the application's consent (a set, so grants accumulate). */
    grantItem(sub: string, clientId: string, scopes: string[], nowMs: number): PendingWrite {
      return pendingWrite({
        Update: {
          TableName: tableName,
          Key: keys.consent(sub, consentId(clientId)),
          UpdateExpression:
            "SET entity = :entity, schemaVersion = :v, client_id = :client, updated = :now" +
            (scopes.length ? " ADD scopes :scopes" : ""),
          ExpressionAttributeValues: {
            ":entity": ENTITY.consent,
            ":v": 1,
            ":client": clientId,
            ":now": nowMs,
            ...(scopes.length && { ":scopes": new Set(scopes) }),
          },
        },
      });
    },

    async list(sub: string): Promise<Consent[]> {
      const items = await queryAll(client, {
        TableName: tableName,
        KeyConditionExpression: "PK = :pk AND begins_with(SK, :prefix)",
        ExpressionAttributeValues: { ":pk": keys.userPartition(sub), ":prefix": keys.consentPrefix },
        ConsistentRead: true,
      });
      return items
        .map((item) => ({
          id: (item.SK as string).slice(keys.consentPrefix.length),
          updated: item.updated as number,
          client_id: item.client_id as string,
          scopes: [...((item.scopes as Set<string> | undefined) ?? [])].sort(),
        }))
        .sort((a, b) => b.updated - a.updated);
    },

    /** Removes one consent; answers its application, or undefined when there was none. */
    async remove(sub: string, id: string): Promise<string | undefined> {
      const { Attributes } = await client.send(
        new DeleteCommand({ TableName: tableName, Key: keys.consent(sub, id), ReturnValues: "ALL_OLD" }),
      );
      return Attributes?.client_id as string | undefined;
    },
  };
}
