import { type HookRequest, MAX_ADDED_CLAIMS_BYTES } from "./contracts";
import { HookFailedError, type HookRunner } from "./ports";

/**
 * Claims no hook may set (docs/hooks.md): the JWT and OAuth/OIDC claims, and every claim the
 * service itself puts in an access or ID token (the OIDC standard claims come from the account).
 * They are dropped from the hook's answer; the rest is kept.
 */
export const RESERVED_CLAIMS: ReadonlySet<string> = new Set([
  ...["iss", "sub", "aud", "exp", "iat", "nbf", "jti", "typ", "scope", "client_id", "auth_time", "nonce"],
  ...["acr", "amr", "azp", "sid", "at_hash", "c_hash", "s_hash", "cnf", "ua_id", "act", "may_act"],
  ...["name", "given_name", "family_name", "middle_name", "nickname", "preferred_username", "profile"],
  ...["picture", "website", "email", "email_verified", "gender", "birthdate", "zoneinfo", "locale"],
  ...["phone_number", "phone_number_verified", "address", "updated_at"],
]);

/** What preTokenIssue adds to each token, reserved claims dropped. */
export interface AddedClaims {
  access?: Record<string, unknown>;
  id?: Record<string, unknown>;
}

function kept(claims: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!claims) return undefined;
  const allowed = Object.fromEntries(Object.entries(claims).filter(([name]) => !RESERVED_CLAIMS.has(name)));
  // Over the cap, the whole answer is refused: a token cut short would be worse than none.
  if (Buffer.byteLength(JSON.stringify(allowed)) > MAX_ADDED_CLAIMS_BYTES)
    throw new HookFailedError("preTokenIssue", "malformed");
  return Object.keys(allowed).length > 0 ? allowed : undefined;
}

/** Asks preTokenIssue, before anything of the grant is committed. Throws HookFailedError. */
export async function addedClaims(
  hooks: HookRunner | undefined,
  request: HookRequest<"preTokenIssue">,
): Promise<AddedClaims> {
  const answer = await hooks?.call("preTokenIssue", request);
  return {
    access: kept(answer?.accessToken?.claims),
    id: kept(answer?.idToken?.claims),
  };
}
