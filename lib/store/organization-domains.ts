import { GetCommand, QueryCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { ORGANIZATION_PROFILE } from "../domain/groups/group";
import type {
  DomainClaim,
  DomainGuard,
  DomainRefusal,
  OrganizationDomainRepository,
  OrganizationJoins,
} from "../domain/organizations/domain-claim-ports";
import { DomainChangeRefusedError } from "../domain/organizations/domain-claim-ports";
import type { DomainPolicy } from "../domain/organizations/domain-ports";
import type { StoreDeps } from "./client";
import { domainOwnerItem } from "./domain-directory";
import { failedConditions, isConditionalCheckFailed, isConflictAfterRetries } from "./errors";
import { membershipItems } from "./groups";
import { ENTITY, gsi1, itemOf, keys } from "./keys";
import { grantRoleItems, orgChecks, orgGuardItems } from "./organizations";
import { pendingWrite, type TransactItem, transactItems } from "./pending-writes";
import { transactWrite } from "./transact";

// Conditions, named so each write says why it may fail (the organization's own: orgChecks).
/** A domain is claimed once per organization. */
const absent = "attribute_not_exists(PK)";
/** The claim is in the state it was read in: a concurrent check or removal wins. */
const inState = "attribute_exists(PK) AND #state = :state";
/** At most one organization verifies a domain: the directory item is free, or already ours. */
const freeOrOurs = "attribute_not_exists(PK) OR orgId = :orgId";
/** Only this organization's directory item is changed. */
const ours = "attribute_exists(PK) AND orgId = :orgId";
/** Another organization's directory item is never deleted (a missing one is no obstacle). */
const notTheirs = "attribute_not_exists(PK) OR orgId = :orgId";

const claimKey = (claim: Pick<DomainClaim, "orgId" | "domain">) => keys.orgDomain(claim.orgId, claim.domain);

function claimOf(item: Record<string, unknown>): DomainClaim {
  return {
    domain: item.domain as string,
    orgId: item.orgId as string,
    state: item.state as DomainClaim["state"],
    policy: item.policy as DomainPolicy,
    value: item.value as string,
    claimedAt: item.claimedAt as number,
    ...(item.verifiedAt !== undefined && { verifiedAt: item.verifiedAt as number }),
    ...(item.checkedAt !== undefined && { checkedAt: item.checkedAt as number }),
  };
}

/** Verified domains (docs/organizations.md#verified-domains): claims in the organization's partition, the directory by domain. */
export function createOrganizationDomainStore({ client, tableName }: StoreDeps): OrganizationDomainRepository {
  function guardItems(orgId: string, guard: DomainGuard): Array<[TransactItem, DomainRefusal]> {
    return orgChecks(tableName, orgId, guard.admin).map((item): [TransactItem, DomainRefusal] => [item, "org"]);
  }

  /** The claim must still be in the state it was read in. */
  function stateCheck(claim: DomainClaim) {
    return {
      ConditionExpression: inState,
      ExpressionAttributeNames: { "#state": "state" },
      ExpressionAttributeValues: { ":state": claim.state },
    };
  }

  /** An update of the claim, guarded by the state it was read in. */
  function claimUpdate(
    claim: DomainClaim,
    expression: string,
    values: Record<string, unknown>,
    names: Record<string, string> = {},
  ): [TransactItem, DomainRefusal] {
    const check = stateCheck(claim);
    return [
      {
        Update: {
          TableName: tableName,
          Key: claimKey(claim),
          UpdateExpression: expression,
          ...check,
          ExpressionAttributeNames: { ...check.ExpressionAttributeNames, ...names },
          ExpressionAttributeValues: { ...check.ExpressionAttributeValues, ...values },
        },
      },
      "stale",
    ];
  }

  async function commit(labelled: Array<[TransactItem, DomainRefusal]>, guard: DomainGuard): Promise<void> {
    try {
      await transactWrite(client, [...labelled.map(([item]) => item), ...transactItems(guard.alsoWrite)]);
    } catch (error) {
      if (isConflictAfterRetries(error)) throw new DomainChangeRefusedError(["stale"]);
      const failed = failedConditions(error);
      if (!failed || failed.length === 0) throw error;
      throw new DomainChangeRefusedError(failed.flatMap((i) => (labelled[i] ? [labelled[i][1]] : [])));
    }
  }

  const deleteOwner = (claim: DomainClaim): [TransactItem, DomainRefusal] => [
    {
      Delete: {
        TableName: tableName,
        Key: keys.domainOwner(claim.domain),
        ConditionExpression: notTheirs,
        ExpressionAttributeValues: { ":orgId": claim.orgId },
      },
    },
    "stale",
  ];

  return {
    async claim(claim, guard) {
      const item = itemOf(ENTITY.orgDomain, claimKey(claim), {
        domain: claim.domain,
        orgId: claim.orgId,
        state: claim.state,
        policy: claim.policy,
        value: claim.value,
        claimedAt: claim.claimedAt,
      });
      await commit(
        [
          ...guardItems(claim.orgId, guard),
          [{ Put: { TableName: tableName, Item: item, ConditionExpression: absent } }, "exists"],
        ],
        guard,
      );
    },

    async get(orgId, domain) {
      const { Item } = await client.send(
        new GetCommand({ TableName: tableName, Key: keys.orgDomain(orgId, domain), ConsistentRead: true }),
      );
      return Item ? claimOf(Item) : undefined;
    },

    async list(orgId) {
      const { Items } = await client.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: "PK = :pk AND begins_with(SK, :prefix)",
          ExpressionAttributeValues: {
            ":pk": keys.groupPartition(ORGANIZATION_PROFILE, orgId),
            ":prefix": keys.orgDomainPrefix,
          },
          ConsistentRead: true,
        }),
      );
      return (Items ?? []).map(claimOf);
    },

    async verify(claim, now, guard) {
      const index = gsi1.verifiedDomain(claim.orgId, claim.domain, now);
      await commit(
        [
          ...guardItems(claim.orgId, guard),
          claimUpdate(
            claim,
            "SET #state = :verified, verifiedAt = :now, checkedAt = :now, GSI1PK = :pk, GSI1SK = :sk",
            {
              ":verified": "verified",
              ":now": now,
              ":pk": index.GSI1PK,
              ":sk": index.GSI1SK,
            },
          ),
          [
            {
              Put: {
                TableName: tableName,
                Item: domainOwnerItem(claim.domain, claim.orgId, claim.policy, now),
                ConditionExpression: freeOrOurs,
                ExpressionAttributeValues: { ":orgId": claim.orgId },
              },
            },
            "taken",
          ],
        ],
        guard,
      );
    },

    async unverify(claim, now, guard) {
      await commit(
        [
          ...guardItems(claim.orgId, guard),
          claimUpdate(claim, "SET #state = :pending, checkedAt = :now REMOVE verifiedAt, GSI1PK, GSI1SK", {
            ":pending": "pending",
            ":now": now,
          }),
          deleteOwner(claim),
        ],
        guard,
      );
    },

    async checked(claim, now) {
      const index = claim.state === "verified" ? gsi1.verifiedDomain(claim.orgId, claim.domain, now) : undefined;
      const check = stateCheck(claim);
      try {
        await client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: claimKey(claim),
            UpdateExpression: index ? "SET checkedAt = :now, GSI1SK = :sk" : "SET checkedAt = :now",
            ...check,
            ExpressionAttributeValues: {
              ...check.ExpressionAttributeValues,
              ":now": now,
              ...(index && { ":sk": index.GSI1SK }),
            },
          }),
        );
      } catch (error) {
        // Changed or removed meanwhile: that change's own record stands.
        if (!isConditionalCheckFailed(error)) throw error;
      }
    },

    async setPolicy(claim, policy, guard) {
      const items: Array<[TransactItem, DomainRefusal]> = [
        ...guardItems(claim.orgId, guard),
        claimUpdate(claim, "SET #policy = :policy", { ":policy": policy }, { "#policy": "policy" }),
      ];
      if (claim.state === "verified")
        items.push([
          {
            Update: {
              TableName: tableName,
              Key: keys.domainOwner(claim.domain),
              UpdateExpression: "SET #policy = :policy",
              ConditionExpression: ours,
              ExpressionAttributeNames: { "#policy": "policy" },
              ExpressionAttributeValues: { ":policy": policy, ":orgId": claim.orgId },
            },
          },
          "stale",
        ]);
      await commit(items, guard);
    },

    async remove(claim, guard) {
      const items: Array<[TransactItem, DomainRefusal]> = [
        ...guardItems(claim.orgId, guard),
        [{ Delete: { TableName: tableName, Key: claimKey(claim), ...stateCheck(claim) } }, "stale"],
      ];
      if (claim.state === "verified") items.push(deleteOwner(claim));
      await commit(items, guard);
    },

    async verifiedPage(limit) {
      const { Items } = await client.send(
        new QueryCommand({
          TableName: tableName,
          IndexName: gsi1.indexName,
          KeyConditionExpression: "GSI1PK = :pk",
          ExpressionAttributeValues: { ":pk": gsi1.verifiedDomains },
          Limit: limit,
        }),
      );
      return (Items ?? []).map(claimOf);
    },
  };
}

/**
 * Membership items for a new account joining an organization in its creation's commit (a
 * verified domain's "join", a single sign-on's first sign-in), as the organization store
 * writes them: only while the organization is live, and with its roles, if any.
 */
export function createOrganizationJoins({ tableName }: Pick<StoreDeps, "tableName">): OrganizationJoins {
  return {
    joinItems(orgId, sub, now, roles = { roles: [], customRights: [] }) {
      const { member, mirror } = membershipItems(ORGANIZATION_PROFILE, orgId, sub, now);
      const guard = orgGuardItems(tableName, orgId, { customRights: roles.customRights, alsoWrite: [] });
      return [
        ...guard.map(([item]) => item),
        { Put: { TableName: tableName, Item: member } },
        { Put: { TableName: tableName, Item: mirror } },
        ...roles.roles.flatMap((right) => grantRoleItems(tableName, orgId, sub, right)),
      ].map(pendingWrite);
    },
  };
}
