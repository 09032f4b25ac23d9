import type { Account } from "../accounts/account";
import { type DomainDirectory, domainOf } from "./domain-ports";
import type { OrgSsoRepository, SsoConnection } from "./sso-ports";

/**
 * Enforced single sign-on (docs/organizations.md#verified-domains): an address of a domain
 * verified with policy `sso` signs in through its organization's provider only. Kept apart
 * from the SSO sign-in itself so every way in can ask without bundling the provider client.
 */
export interface SsoEnforcementDeps {
  domains: Pick<DomainDirectory, "verifiedOwner">;
  sso: Pick<OrgSsoRepository, "get">;
}

/** The organization's connection when it signs people in now. */
export async function liveConnection(deps: Pick<SsoEnforcementDeps, "sso">, orgId: string) {
  const connection = await deps.sso.get(orgId);
  return connection?.enabled ? connection : undefined;
}

/** The organization whose single sign-on an address must use: its domain verified with policy sso, a live connection. */
export async function enforcedConnection(
  deps: SsoEnforcementDeps,
  address: string,
): Promise<SsoConnection | undefined> {
  const domain = domainOf(address.trim());
  const owner = domain ? await deps.domains.verifiedOwner(domain) : undefined;
  return owner?.policy === "sso" ? liveConnection(deps, owner.orgId) : undefined;
}

/**
 * Whether the account must sign in through its organization's provider: its e-mail, confirmed
 * or not, is of an enforced domain. `checked` is an address whose domain the caller already
 * found not enforced (the hosted form asks before the password), so it is not read twice.
 */
export async function mustUseOrgSso(
  deps: SsoEnforcementDeps | undefined,
  account: Account,
  checked?: string,
): Promise<boolean> {
  const email = account.email?.value;
  if (!deps || !email) return false;
  const domain = domainOf(email);
  if (!domain || (checked !== undefined && domainOf(checked.trim()) === domain)) return false;
  return Boolean(await enforcedConnection(deps, email));
}

export const ORG_SSO_REQUIRED = {
  why: "org_sso_required",
  message: "the organization's sign-in must be used",
} as const;
