import { GetCommand } from "@aws-sdk/lib-dynamodb";
import type { DomainDirectory, DomainPolicy, VerifiedDomain } from "../domain/organizations/domain-ports";
import type { StoreDeps } from "./client";
import { ENTITY, itemOf, keys } from "./keys";

/** The directory item written when an organization verifies a domain (and deleted when it no longer holds). */
export function domainOwnerItem(domain: string, orgId: string, policy: DomainPolicy, now: number) {
  return itemOf(ENTITY.domainOwner, keys.domainOwner(domain), { domain, orgId, policy, verifiedAt: now });
}

export function createDomainDirectory({ client, tableName }: StoreDeps): DomainDirectory {
  return {
    async verifiedOwner(domain): Promise<VerifiedDomain | undefined> {
      const { Item } = await client.send(
        new GetCommand({
          TableName: tableName,
          Key: keys.domainOwner(domain),
          ProjectionExpression: "orgId, #policy",
          ExpressionAttributeNames: { "#policy": "policy" },
        }),
      );
      if (!Item) return undefined;
      return { domain, orgId: Item.orgId as string, policy: Item.policy as DomainPolicy };
    },
  };
}
