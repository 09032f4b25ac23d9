import { GetCommand } from "@aws-sdk/lib-dynamodb";
import { OrgChangeRefusedError, type OrgGuard, type OrgRefusal } from "../domain/organizations/ports";
import type { OrgSsoRepository, SsoConnection } from "../domain/organizations/sso-ports";
import type { StoreDeps } from "./client";
import { ENTITY, itemOf, keys } from "./keys";
import { commitOrgChange, orgGuardItems } from "./organizations";
import type { TransactItem } from "./pending-writes";

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
  const commit = (orgId: string, write: [TransactItem, OrgRefusal], guard: OrgGuard) =>
    commitOrgChange({ client, tableName }, [...orgGuardItems(tableName, orgId, guard), write], guard);

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
