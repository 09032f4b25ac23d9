import { GetCommand } from "@aws-sdk/lib-dynamodb";
import { OrgChangeRefusedError, type OrgGuard, type OrgRefusal } from "../domain/organizations/ports";
import type { OrgSsoRepository, SsoConnection } from "../domain/organizations/sso-ports";
import type { StoreDeps } from "./client";
import { failedConditions, isConflictAfterRetries } from "./errors";
import { ENTITY, itemOf, keys } from "./keys";
import { orgGuardItems } from "./organizations";
import { type TransactItem, transactItems } from "./pending-writes";
import { transactWrite } from "./transact";

// Conditions, named so each write says why it may fail.
/** Removing answers whether there was a connection. */
const present = "attribute_exists(PK)";

const FIELDS = [
  "orgId",
  "issuer",
  "authorizeUrl",
  "tokenUrl",
  "jwksUri",
  "clientId",
  "sealedSecret",
  "scopes",
  "claims",
  "defaultRoles",
  "enabled",
  "updatedAt",
] as const;

/** An organization's SSO connection (docs/organizations.md), in the organization's partition. */
export function createOrgSsoStore({ client, tableName }: StoreDeps): OrgSsoRepository {
  /** The organization's guard items, then the connection's own write; one transaction. */
  async function commit(orgId: string, write: [TransactItem, OrgRefusal], guard: OrgGuard): Promise<void> {
    const labelled: Array<[TransactItem, OrgRefusal]> = [...orgGuardItems(tableName, orgId, guard), write];
    try {
      await transactWrite(client, [...labelled.map(([item]) => item), ...transactItems(guard.alsoWrite)]);
    } catch (error) {
      if (isConflictAfterRetries(error)) throw new OrgChangeRefusedError(["stale"]);
      const failed = failedConditions(error);
      if (!failed || failed.length === 0) throw error;
      const reasons = failed.flatMap((i) => (labelled[i] ? [labelled[i][1]] : []));
      const rights = guard.customRights.filter((right) =>
        failed.some(
          (i) => (labelled[i]?.[0].ConditionCheck?.Key as { SK?: string })?.SK === keys.rightDefinition(right).SK,
        ),
      );
      throw new OrgChangeRefusedError(reasons, rights);
    }
  }

  return {
    async get(orgId) {
      const { Item } = await client.send(
        new GetCommand({ TableName: tableName, Key: keys.orgSso(orgId), ConsistentRead: true }),
      );
      if (!Item) return undefined;
      return Object.fromEntries(FIELDS.map((field) => [field, Item[field]])) as unknown as SsoConnection;
    },

    async put(connection, guard) {
      const item = itemOf(ENTITY.orgSso, keys.orgSso(connection.orgId), connection);
      await commit(connection.orgId, [{ Put: { TableName: tableName, Item: item } }, "stale"], guard);
    },

    async remove(orgId, guard) {
      try {
        await commit(
          orgId,
          [{ Delete: { TableName: tableName, Key: keys.orgSso(orgId), ConditionExpression: present } }, "absent"],
          guard,
        );
        return true;
      } catch (error) {
        if (error instanceof OrgChangeRefusedError && error.reasons.length === 1 && error.reasons[0] === "absent")
          return false;
        throw error;
      }
    },
  };
}
