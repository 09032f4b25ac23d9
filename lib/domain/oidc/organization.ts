import { OAuthError } from "../errors";
import { ORGANIZATION_PROFILE } from "../groups/group";
import type { GroupRepository } from "../groups/ports";

/**
 * The organization a sign-in acts for (DESIGN 6b): an authorization request names it with
 * `organization=<id>`, a group of profile `org`; its tokens and userinfo carry `org_id` and
 * the member's `org_roles`, the rights the account holds over that group. Read again at
 * every code exchange, refresh and userinfo call, so a member removed or a role revoked
 * shows at once.
 */

/** The scope that asks the user to pick an organization when the request names none. */
export const ORGANIZATION_SCOPE = "organization";

/** An organization offered on the picker page. */
export interface OrganizationChoice {
  id: string;
  name?: string;
}

export interface OrganizationRoles {
  /** The rights `sub` holds over the organization's group, sorted; undefined when `sub` is not a member. */
  rolesIn(sub: string, organization: string): Promise<string[] | undefined>;
}

/** The organizations `sub` belongs to (the first `limit`), named: the groups' own listing of an account's memberships. */
export async function organizationsOf(
  groups: Pick<GroupRepository, "membershipsOf" | "groups">,
  sub: string,
  limit: number,
): Promise<OrganizationChoice[]> {
  const { memberships } = await groups.membershipsOf(sub, { profile: ORGANIZATION_PROFILE, limit });
  // A group whose deletion has not finished is not found, so not offered.
  const found = new Map((await groups.groups(memberships)).map((group) => [group.id, group]));
  return memberships.flatMap(({ id }) => {
    const group = found.get(id);
    return group ? [{ id, ...(group.name && { name: group.name }) }] : [];
  });
}

export interface OrganizationClaims {
  org_id: string;
  org_roles: string[];
}

export const NO_LONGER_A_MEMBER = "the account is no longer a member of the organization";

/** The claims for a member of `organization` at a grant; invalid_grant when the account is no longer one. */
export async function organizationClaims(
  organizations: OrganizationRoles | undefined,
  sub: string,
  organization: string | undefined,
): Promise<OrganizationClaims | undefined> {
  if (organization === undefined) return undefined;
  const roles = organizations ? await organizations.rolesIn(sub, organization) : undefined;
  if (!roles) throw new OAuthError("invalid_grant", NO_LONGER_A_MEMBER);
  return { org_id: organization, org_roles: roles };
}

/** What the preTokenIssue hook is told of the organization (docs/hooks.md). */
export const hookOrganization = (org: OrganizationClaims | undefined) =>
  org && { organization: { id: org.org_id, roles: org.org_roles } };
