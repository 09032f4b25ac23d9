import type { Account } from "../accounts/account";
import type { ClientRecord } from "../clients/client";
import { OAuthError } from "../errors";
import { isOidcScope, parseScope, permissionKind } from "../permissions";

/**
 * The scope of an authorization request: OIDC scopes, which every client may ask for, and
 * user permissions (interface §5.3), which must be granted to the client.
 */
export function authorizationScopes(client: ClientRecord, scope: string | undefined): string[] {
  const requested = parseScope(scope ?? "");
  if (requested.length === 0) throw new OAuthError("invalid_scope", "scope is required");
  const unknown = requested.filter((s) => !isOidcScope(s) && permissionKind(s) !== "user");
  if (unknown.length > 0) throw new OAuthError("invalid_scope", "the scope names something that is not a user scope");
  const notGranted = requested.filter((s) => permissionKind(s) === "user" && !client.scopes.includes(s));
  if (notGranted.length > 0) throw new OAuthError("invalid_scope", "the scope asks for a permission the client lacks");
  return [...new Set(requested)];
}

/** The user permissions among granted scopes: what the access token opens on the interface. */
export function permissionsOf(scopes: readonly string[]): string[] {
  return scopes.filter((s) => permissionKind(s) === "user");
}

/** Standard claims of the account that the scopes release (OIDC Core 5.1, 5.4). */
export function claimsFor(account: Account, scopes: readonly string[]): Record<string, unknown> {
  const claims: Record<string, unknown> = {};
  if (scopes.includes("profile")) {
    const name = [account.given_name, account.middle_name, account.family_name].filter(Boolean).join(" ");
    if (name) claims.name = name;
    for (const field of ["family_name", "given_name", "middle_name"] as const) {
      if (account[field] !== undefined) claims[field] = account[field];
    }
    claims.updated_at = account.updatedAt;
  }
  if (scopes.includes("email") && account.email) {
    claims.email = account.email.value;
    claims.email_verified = account.email.verified;
  }
  if (scopes.includes("phone") && account.phone_number) {
    claims.phone_number = account.phone_number.value;
    claims.phone_number_verified = account.phone_number.verified;
  }
  return claims;
}
