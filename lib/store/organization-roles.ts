import { GetCommand } from "@aws-sdk/lib-dynamodb";
import { ORGANIZATION_PROFILE } from "../domain/groups/group";
import type { OrganizationRoles } from "../domain/oidc/organization";
import { partyKey } from "../domain/rights/parties";
import type { StoreDeps } from "./client";
import { keys } from "./keys";
import { queryAll } from "./paging";

/**
 * A member's roles in an organization from the member's own partition: the membership's
 * mirror (one GetItem) and the rights held over the organization's group (one Query of
 * their prefix), side by side; both strongly consistent.
 */
export function createOrganizationRoleStore({ client, tableName }: StoreDeps): OrganizationRoles {
  return {
    async rolesIn(sub, organization) {
      const group = partyKey({ kind: "grps", id: organization, profile: ORGANIZATION_PROFILE });
      const [membership, rights] = await Promise.all([
        client.send(
          new GetCommand({
            TableName: tableName,
            Key: keys.membership(sub, ORGANIZATION_PROFILE, organization),
            ConsistentRead: true,
            ProjectionExpression: "PK",
          }),
        ),
        queryAll(client, {
          TableName: tableName,
          KeyConditionExpression: "PK = :pk AND begins_with(SK, :prefix)",
          ExpressionAttributeValues: { ":pk": keys.userPartition(sub), ":prefix": `${keys.rightGrantPrefix}${group}#` },
          ProjectionExpression: "#right",
          ExpressionAttributeNames: { "#right": "right" },
          ConsistentRead: true,
        }),
      ]);
      if (!membership.Item) return undefined;
      return rights.map((item) => item.right as string).sort();
    },
  };
}
