import type { Account } from "../accounts/account";
import type { ClientRecord } from "../clients/client";
import { OAuthError } from "../errors";
import { OPERATOR_SCOPE } from "../operators/console-client";
import { isOidcScope, parseScope, permissionKind } from "../permissions";
import { resourceScopes, type Target } from "../resources/target";

/**
 * The scope of an authorization request: OIDC scopes, which every client may ask for, and
 * user permissions (interface §5.3), which must be granted to the client; for a registered
 * resource, its own scopes instead, all of them when none is named.
 */
export function authorizationScopes(client: ClientRecord, scope: string | undefined, target: Target): string[] {
  const requested = parseScope(scope ?? "");
  if (target.kind === "registered")
    return resourceScopes(
      target.resource,
      requested.length > 0 ? requested : target.resource.scopes.map((s) => s.name),
    );
  if (requested.length === 0) throw new OAuthError("invalid_scope", "scope is required");
  // The operator scope is no permission of the catalogue: only the built-in console is granted it.
  const unknown = requested.filter(
    (s) => !isOidcScope(s) && permissionKind(s) !== "user" && !(s === OPERATOR_SCOPE && client.scopes.includes(s)),
  );
  if (unknown.length > 0) throw new OAuthError("invalid_scope", "the scope names something that is not a user scope");
  const notGranted = requested.filter((s) => permissionKind(s) === "user" && !client.scopes.includes(s));
  if (notGranted.length > 0) throw new OAuthError("invalid_scope", "the scope asks for a permission the client lacks");
  return [...new Set(requested)];
}

/** The user permissions among granted scopes: what the access token opens on the interface. */
export function permissionsOf(scopes: readonly string[]): string[] {
  return scopes.filter((s) => permissionKind(s) === "user");
}

/** The standard claims each scope releases (OIDC Core 5.4); `address` has none here. */
const SCOPE_CLAIMS: Readonly<Record<string, readonly string[]>> = {
  profile: ["name", "family_name", "given_name", "middle_name", "updated_at"],
  email: ["email", "email_verified"],
  phone: ["phone_number", "phone_number_verified"],
};

/** Every standard claim an account can hold, the names the `claims` parameter may ask for. */
export const RELEASABLE_CLAIMS: readonly string[] = Object.values(SCOPE_CLAIMS).flat();

/** The standard claims the account holds (OIDC Core 5.1). */
function accountClaims(account: Account): Record<string, unknown> {
  const name = [account.given_name, account.middle_name, account.family_name].filter(Boolean).join(" ");
  return {
    ...(name && { name }),
    family_name: account.family_name,
    given_name: account.given_name,
    middle_name: account.middle_name,
    updated_at: account.updatedAt,
    email: account.email?.value,
    email_verified: account.email?.verified,
    phone_number: account.phone_number?.value,
    phone_number_verified: account.phone_number?.verified,
  };
}

/**
 * Standard claims of the account that the scopes release (OIDC Core 5.4), and those the
 * `claims` parameter named one by one (5.5); a claim the account does not hold is left out.
 */
export function claimsFor(
  account: Account,
  scopes: readonly string[],
  named: readonly string[] = [],
): Record<string, unknown> {
  const held = accountClaims(account);
  const wanted = new Set([...scopes.flatMap((scope) => SCOPE_CLAIMS[scope] ?? []), ...named]);
  return Object.fromEntries(Object.entries(held).filter(([claim, value]) => wanted.has(claim) && value !== undefined));
}
