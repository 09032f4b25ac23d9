import { GetCommand, QueryCommand } from "@aws-sdk/lib-dynamodb";
import { ORGANIZATION_PROFILE } from "../domain/groups/group";
import { ORG_ADMIN, ROLE_TAG } from "../domain/organizations/organizations";
import {
  type MemberState,
  type OrganizationRepository,
  OrgChangeRefusedError,
  type OrgGuard,
  type OrgRefusal,
} from "../domain/organizations/ports";
import { type Party, partyKey, partyOfKey } from "../domain/rights/parties";
import type { GrantRef } from "../domain/rights/plan";
import type { StoreDeps } from "./client";
import { failedConditions, isConflictAfterRetries } from "./errors";
import { membershipItems } from "./groups";
import { keys } from "./keys";
import { queryAll, queryPages } from "./paging";
import { prefetchOf, type TransactItem, transactItems } from "./pending-writes";
import { addTagsItem, grantKey, holderItem, holderKey } from "./rights";
import { transactWrite } from "./transact";

// Conditions, named so each write says why it may fail.
/** The organization exists and is not being deleted. */
export const groupLive = "attribute_exists(PK) AND attribute_not_exists(deleting)";
/** An item read (an account, a grant, a member) must still be there. */
const present = "attribute_exists(PK)";
/** A member is added once. */
const absent = "attribute_not_exists(PK)";
/** A catalogue entry exists and applies to users over groups. */
const rightForGroups = "attribute_exists(PK) AND contains(#subjectTypes, :user) AND contains(#objectTypes, :grps)";

const orgParty = (orgId: string): Party => ({ kind: "grps", id: orgId, profile: ORGANIZATION_PROFILE });
const roleRef = (orgId: string, subject: Party, right: string): GrantRef => ({
  subject,
  object: orgParty(orgId),
  right,
});
const userParty = (sub: string): Party => ({ kind: "user", id: sub });

/** The member's roles are unchanged since `rev` was read (the member item carries it). */
function revCondition(rev: number) {
  return rev === 0
    ? {
        ConditionExpression: `${present} AND attribute_not_exists(#rolesRev)`,
        ExpressionAttributeNames: { "#rolesRev": "rolesRev" },
      }
    : {
        ConditionExpression: `${present} AND #rolesRev = :rev`,
        ExpressionAttributeNames: { "#rolesRev": "rolesRev" },
        ExpressionAttributeValues: { ":rev": rev },
      };
}

/** Guard items first (also the organization's SSO connection's writes), each with the refusal its failure means. */
export function orgGuardItems(tableName: string, orgId: string, guard: OrgGuard): Array<[TransactItem, OrgRefusal]> {
  const items = orgChecks(tableName, orgId, guard.admin).map((item): [TransactItem, OrgRefusal] => [item, "org"]);
  const kept = guard.keepAdmin === undefined ? undefined : partyOfKey(guard.keepAdmin);
  if (kept && guard.keepAdmin !== guard.admin) {
    const key = grantKey(roleRef(orgId, kept, ORG_ADMIN));
    items.push([{ ConditionCheck: { TableName: tableName, Key: key, ConditionExpression: present } }, "stale"]);
  }
  for (const right of guard.customRights) {
    items.push([
      {
        ConditionCheck: {
          TableName: tableName,
          Key: keys.rightDefinition(right),
          ConditionExpression: rightForGroups,
          ExpressionAttributeNames: { "#subjectTypes": "subjectTypes", "#objectTypes": "objectTypes" },
          ExpressionAttributeValues: { ":user": "user", ":grps": "grps" },
        },
      },
      "right",
    ]);
  }
  return items;
}

/**
 * What every organization change checks first: the organization is live and, in user mode,
 * the caller still holds ORG_ADMIN over it. Failing either means "no such organization".
 */
export function orgChecks(tableName: string, orgId: string, admin: string | undefined): TransactItem[] {
  const checks: TransactItem[] = [
    {
      ConditionCheck: {
        TableName: tableName,
        Key: keys.group(ORGANIZATION_PROFILE, orgId),
        ConditionExpression: groupLive,
      },
    },
  ];
  if (admin !== undefined) {
    const key = grantKey(roleRef(orgId, userParty(admin), ORG_ADMIN));
    checks.push({ ConditionCheck: { TableName: tableName, Key: key, ConditionExpression: present } });
  }
  return checks;
}

/** A role: the right over the organization's group, tagged as a role, and its holder's mirror in the group's partition. */
export function grantRoleItems(tableName: string, orgId: string, sub: string, right: string): TransactItem[] {
  const ref = roleRef(orgId, userParty(sub), right);
  return [addTagsItem(tableName, ref, [ROLE_TAG]), { Put: { TableName: tableName, Item: holderItem(ref) } }];
}

/** One transaction; a failed condition becomes OrgChangeRefusedError with its reasons. */
export async function commitOrgChange(
  { client }: StoreDeps,
  labelled: Array<[TransactItem, OrgRefusal]>,
  guard: OrgGuard,
): Promise<void> {
  try {
    await transactWrite(client, [...labelled.map(([item]) => item), ...transactItems(guard.alsoWrite)]);
  } catch (error) {
    // Still clashing with other transactions after transactWrite's retries: read again.
    if (isConflictAfterRetries(error)) throw new OrgChangeRefusedError(["stale"]);
    const failed = failedConditions(error);
    if (!failed || failed.length === 0) throw error;
    // Past the labelled items: a write of guard.alsoWrite (an invitation consumed at most once).
    const reasons = failed.map((i): OrgRefusal => (labelled[i] ? labelled[i][1] : "alsoWrite"));
    const rights = guard.customRights.filter((right) =>
      failed.some(
        (i) =>
          (labelled[i]?.[0].ConditionCheck?.Key as { SK?: string } | undefined)?.SK === keys.rightDefinition(right).SK,
      ),
    );
    throw new OrgChangeRefusedError(reasons, rights);
  }
}

/**
 * Organizations (docs/organizations.md) over the group and rights items: a member is the
 * group's member item and its mirror, a role the grant of a right over the group and the
 * grant's mirror in the group's partition (lib/store/groups.ts, lib/store/rights.ts).
 */
export function createOrganizationStore({ client, tableName }: StoreDeps): OrganizationRepository {
  const grantRole = (orgId: string, sub: string, right: string): Array<[TransactItem, OrgRefusal]> =>
    grantRoleItems(tableName, orgId, sub, right).map((item): [TransactItem, OrgRefusal] => [item, "stale"]);

  function revokeRole(orgId: string, sub: string, right: string): Array<[TransactItem, OrgRefusal]> {
    const ref = roleRef(orgId, userParty(sub), right);
    return [
      [{ Delete: { TableName: tableName, Key: grantKey(ref), ConditionExpression: present } }, "stale"],
      [{ Delete: { TableName: tableName, Key: holderKey(ref) } }, "stale"],
    ];
  }

  const commit = (labelled: Array<[TransactItem, OrgRefusal]>, guard: OrgGuard) =>
    commitOrgChange({ client, tableName }, labelled, guard);

  return {
    adminPrefetch(sub: string, orgId: string) {
      const key = grantKey(roleRef(orgId, userParty(sub), ORG_ADMIN));
      return prefetchOf({
        keys: [key],
        read: (found) => found.some((item) => item.PK === key.PK && item.SK === key.SK),
      });
    },

    async isAdmin(sub: string, orgId: string): Promise<boolean> {
      const { Item } = await client.send(
        new GetCommand({
          TableName: tableName,
          Key: grantKey(roleRef(orgId, userParty(sub), ORG_ADMIN)),
          ProjectionExpression: "PK",
          ConsistentRead: true,
        }),
      );
      return Boolean(Item);
    },

    /**
     * The holders' mirrors sort by subject key, so a page of members (in subject order) finds
     * all its roles in one key range of the group's partition: one Query, which also meets
     * non-members' and applications' grants in that range, left out here.
     */
    async rolesOf(orgId: string, subs: string[]): Promise<Map<string, string[]>> {
      const sorted = [...subs].sort();
      const wanted = new Set(subs);
      const items = await queryAll(client, {
        TableName: tableName,
        KeyConditionExpression: "PK = :pk AND SK BETWEEN :from AND :to",
        ExpressionAttributeValues: {
          ":pk": keys.groupPartition(ORGANIZATION_PROFILE, orgId),
          ":from": keys.rightHoldersOf(sorted[0]),
          // "~" sorts after every character of a right name.
          ":to": `${keys.rightHoldersOf(sorted[sorted.length - 1])}~`,
        },
        ProjectionExpression: "#subjectKey, #right",
        ExpressionAttributeNames: { "#subjectKey": "subjectKey", "#right": "right" },
        ConsistentRead: true,
      });
      const roles = new Map<string, string[]>();
      for (const item of items) {
        const sub = item.subjectKey as string;
        if (!wanted.has(sub)) continue;
        roles.set(sub, [...(roles.get(sub) ?? []), item.right as string]);
      }
      return roles;
    },

    /** The member item (its revision) and its rights' mirrors, read side by side. */
    async memberState(orgId: string, sub: string): Promise<MemberState | undefined> {
      const [member, holders] = await Promise.all([
        client.send(
          new GetCommand({
            TableName: tableName,
            Key: keys.groupMember(ORGANIZATION_PROFILE, orgId, sub),
            ConsistentRead: true,
          }),
        ),
        client.send(
          new QueryCommand({
            TableName: tableName,
            KeyConditionExpression: "PK = :pk AND begins_with(SK, :prefix)",
            ExpressionAttributeValues: {
              ":pk": keys.groupPartition(ORGANIZATION_PROFILE, orgId),
              ":prefix": keys.rightHoldersOf(partyKey(userParty(sub))),
            },
            ConsistentRead: true,
          }),
        ),
      ]);
      if (!member.Item) return undefined;
      const roles = (holders.Items ?? []).map((item) => item.right as string).sort();
      return { rev: Number(member.Item.rolesRev ?? 0), roles };
    },

    /** The group's ORG_ADMIN holders, page by page, until one not in `except` appears. */
    async otherAdmin(orgId: string, except: string[]): Promise<string | undefined> {
      for await (const page of queryPages(client, {
        TableName: tableName,
        KeyConditionExpression: "PK = :pk AND begins_with(SK, :prefix)",
        FilterExpression: "#right = :admin",
        ExpressionAttributeNames: { "#right": "right" },
        ExpressionAttributeValues: {
          ":pk": keys.groupPartition(ORGANIZATION_PROFILE, orgId),
          ":prefix": keys.rightHolderPrefix,
          ":admin": ORG_ADMIN,
        },
        ConsistentRead: true,
      })) {
        const found = page.map((item) => item.subjectKey as string).find((key) => !except.includes(key));
        if (found !== undefined) return found;
      }
      return undefined;
    },

    async addMember(orgId: string, sub: string, roles: string[], now: number, guard: OrgGuard): Promise<void> {
      const { member, mirror } = membershipItems(ORGANIZATION_PROFILE, orgId, sub, now);
      await commit(
        [
          ...orgGuardItems(tableName, orgId, guard),
          [
            { ConditionCheck: { TableName: tableName, Key: keys.userProfile(sub), ConditionExpression: present } },
            "account",
          ],
          [{ Put: { TableName: tableName, Item: member, ConditionExpression: absent } }, "alreadyMember"],
          [{ Put: { TableName: tableName, Item: mirror } }, "stale"],
          ...roles.flatMap((right) => grantRole(orgId, sub, right)),
        ],
        guard,
      );
    },

    async removeMember(orgId: string, sub: string, state: MemberState, guard: OrgGuard): Promise<void> {
      await commit(
        [
          ...orgGuardItems(tableName, orgId, guard),
          [
            {
              Delete: {
                TableName: tableName,
                Key: keys.groupMember(ORGANIZATION_PROFILE, orgId, sub),
                ...revCondition(state.rev),
              },
            },
            "stale",
          ],
          [{ Delete: { TableName: tableName, Key: keys.membership(sub, ORGANIZATION_PROFILE, orgId) } }, "stale"],
          ...state.roles.flatMap((right) => revokeRole(orgId, sub, right)),
        ],
        guard,
      );
    },

    async setRoles(orgId: string, sub: string, state: MemberState, add: string[], remove: string[], guard: OrgGuard) {
      const rev = revCondition(state.rev);
      await commit(
        [
          ...orgGuardItems(tableName, orgId, guard),
          [
            {
              Update: {
                TableName: tableName,
                Key: keys.groupMember(ORGANIZATION_PROFILE, orgId, sub),
                UpdateExpression: "ADD #rolesRev :one",
                ...rev,
                ExpressionAttributeValues: {
                  ...("ExpressionAttributeValues" in rev ? rev.ExpressionAttributeValues : {}),
                  ":one": 1,
                },
              },
            },
            "stale",
          ],
          ...remove.flatMap((right) => revokeRole(orgId, sub, right)),
          ...add.flatMap((right) => grantRole(orgId, sub, right)),
        ],
        guard,
      );
    },
  };
}
