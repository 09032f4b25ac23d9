import type { OAuthError } from "../errors";

/**
 * The organization a sign-in acts for (DESIGN 6b): an authorization request names it with
 * `organization=<id>`, a group of profile `org`; its tokens and userinfo carry `org_id` and
 * the member's `org_roles`, the rights the account holds over that group. Read again at
 * every code exchange, refresh and userinfo call, so a member removed or a role revoked
 * shows at once.
 */

export const ORGANIZATION_PROFILE = "org";

export interface OrganizationRoles {
  /** The rights `sub` holds over the organization's group, sorted; undefined when `sub` is not a member. */
  rolesIn(sub: string, organization: string): Promise<string[] | undefined>;
}

export interface OrganizationClaims {
  org_id: string;
  org_roles: string[];
}

/** The claims for a member of `organization`; `refusal` when the account is not (or no longer) one. */
export async function organizationClaims(
  organizations: OrganizationRoles | undefined,
  sub: string,
  organization: string | undefined,
  refusal: () => OAuthError,
): Promise<OrganizationClaims | undefined> {
  if (organization === undefined) return undefined;
  const roles = organizations ? await organizations.rolesIn(sub, organization) : undefined;
  if (!roles) throw refusal();
  return { org_id: organization, org_roles: roles };
}
