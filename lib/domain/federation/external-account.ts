import { decodeJwt, type JWTPayload } from "jose";
import type { FederationProviderConfig } from "../../config/settings";
import { fetchUserinfo, ProviderError, type ProviderTokens } from "./provider-client";

/** The account at the provider that a bind links: its id (`sub`) and a name to show. */
export interface ExternalAccount {
  sid: string;
  userName?: string;
}

/** External ids are kept in keys and paths: printable, at most 255 characters (OIDC `sub`). */
export const SID_PATTERN = "^[^\\u0000-\\u001f\\u007f/]{1,255}$";
const SID = new RegExp(SID_PATTERN);

/** Clock difference we tolerate between us and the provider. */
const SKEW_SECONDS = 60;

/**
 * The id_token came straight from the provider's token endpoint over TLS, so its
 * signature need not be checked (OIDC Core 3.1.3.7, step 6); its audience, expiry and
 * nonce still must match what we asked for.
 */
function idTokenClaims(idToken: string, clientId: string, nonce: string, now: number): JWTPayload {
  let claims: JWTPayload;
  try {
    claims = decodeJwt(idToken);
  } catch {
    throw new ProviderError("unavailable", "malformed_id_token");
  }
  const audiences = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
  if (!audiences.includes(clientId)) throw new ProviderError("unavailable", "id_token_audience");
  if (typeof claims.exp !== "number" || claims.exp < now - SKEW_SECONDS) {
    throw new ProviderError("unavailable", "id_token_expired");
  }
  if (claims.nonce !== nonce) throw new ProviderError("unavailable", "id_token_nonce");
  return claims;
}

function nameOf(claims: Record<string, unknown> | undefined): string | undefined {
  for (const field of ["preferred_username", "email", "name"]) {
    const value = claims?.[field];
    if (typeof value === "string" && value.length > 0 && value.length <= 256) return value;
  }
  return undefined;
}

function subOf(claims: Record<string, unknown> | undefined): string | undefined {
  const sub = claims?.sub;
  if (typeof sub === "number") return String(sub);
  return typeof sub === "string" ? sub : undefined;
}

/** Reads the external account from userinfo when configured, else from the id_token. */
export async function externalAccountOf(
  provider: FederationProviderConfig,
  tokens: ProviderTokens,
  nonce: string,
  now: number,
): Promise<ExternalAccount> {
  const idClaims = tokens.idToken ? idTokenClaims(tokens.idToken, provider.clientId, nonce, now) : undefined;
  const { userinfoUrl } = provider;
  const info = userinfoUrl ? await fetchUserinfo({ ...provider, userinfoUrl }, tokens.accessToken) : undefined;
  const sid = subOf(info) ?? subOf(idClaims);
  if (!sid || !SID.test(sid)) throw new ProviderError("unavailable", "no_account_id");
  // OIDC Core 5.3.2: a userinfo sub that differs from the id_token's must not be used.
  if (info && idClaims && subOf(idClaims) !== sid) throw new ProviderError("unavailable", "subject_mismatch");
  const userName = nameOf(info) ?? nameOf(idClaims);
  return { sid, ...(userName && { userName }) };
}
