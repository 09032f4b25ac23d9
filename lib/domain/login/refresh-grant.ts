import type { ClientRecord } from "../clients/client";
import { OAuthError } from "../errors";
import { hookAnswer } from "../hooks/fail-closed";
import { addedClaims } from "../hooks/token-claims";
import { hookOrganization, organizationClaims } from "../oidc/organization";
import { consoleTokenRole } from "../operators/operator";
import { newRefreshToken, parseRefreshToken } from "../sessions/refresh-token";
import type { LoginDeps } from "../sign-in/login-commit";

export interface RefreshResponse {
  access_token: string;
  token_type: "Bearer" | "DPoP";
  expires_in: number;
  scope: string;
  refresh_token: string;
}

/**
 * grant_type=refresh_token with rotation: every refresh token works once. Presenting
 * one that was already exchanged means it leaked, so the whole session ends (RFC 9700
 * 4.14.2); the legitimate holder signs in again.
 */
export async function refreshGrant(
  client: ClientRecord,
  token: unknown,
  deps: LoginDeps,
  /** RFC 8707 2.2: a `resource` sent with the refresh, and the management API's identifier. */
  target: { resource?: unknown; own: string },
): Promise<RefreshResponse> {
  const now = (deps.now ?? (() => Math.floor(Date.now() / 1000)))();
  if (typeof token !== "string" || token === "") throw new OAuthError("invalid_request", "refresh_token is required");
  const parsed = parseRefreshToken(token);
  if (!parsed) throw new OAuthError("invalid_grant", "the refresh token is not valid");
  const { session, account } = await deps.sessions.sessionAndAccount(parsed.sub, parsed.sid);
  if (!session || session.expiresAt <= now || !account) throw new OAuthError("invalid_grant", "the session has ended");
  if (session.clientId !== client.clientId)
    throw new OAuthError("invalid_grant", "the refresh token was issued to another client");
  if (account.locked || account.state?.name === "inactivityLock")
    throw new OAuthError("invalid_grant", "the account is locked");
  // A refresh keeps the audience the user allowed; it may repeat it, never change it.
  if (target.resource !== undefined && target.resource !== (session.audience ?? target.own))
    throw new OAuthError("invalid_target", "the resource differs from the one this refresh token was issued for");
  if (session.dpopJkt !== undefined && session.dpopJkt !== deps.dpopKey)
    throw new OAuthError("invalid_dpop_proof", "the refresh token is bound to a DPoP key: send a proof made with it");

  const org = await organizationClaims(deps.organizationRoles, parsed.sub, session.organization);
  // Before the rotation: a failed hook must not spend the refresh token.
  const request = {
    clientId: client.clientId,
    grant: "refresh_token",
    sub: parsed.sub,
    scopes: session.scopes ?? [],
    ...hookOrganization(org),
  } as const;
  const added = await hookAnswer(() => addedClaims(deps.hooks, request));
  await consoleTokenRole(deps.rights, client.clientId, parsed.sub);
  const next = newRefreshToken(parsed.sub, parsed.sid);
  const outcome = await deps.sessions.rotateRefresh(parsed.sub, parsed.sid, parsed.hash, next.hash, now);
  if ("refused" in outcome) {
    if (outcome.refused === "reused") {
      await endReusedSession(deps, { sub: parsed.sub, sid: parsed.sid }, client.clientId, "refresh_token_reuse", now);
      throw new OAuthError("invalid_grant", "the refresh token was already used; the session has been ended");
    }
    throw new OAuthError("invalid_grant", "the session has ended");
  }
  const scopes = outcome.rotated.scopes ?? [];
  const ttl = deps.settings.tokens.accessTtlSeconds;
  const { token: access } = await deps.accessTokens.issue({
    sub: parsed.sub,
    clientId: client.clientId,
    scopes,
    ttlSeconds: ttl,
    sid: parsed.sid,
    uaId: outcome.rotated.uaId,
    audience: outcome.rotated.audience,
    extraClaims: { ...added.access, ...org },
  });
  return {
    access_token: access,
    token_type: "Bearer",
    expires_in: ttl,
    scope: scopes.join(" "),
    refresh_token: next.token,
  };
}

/**
 * A token presented twice (a refresh token, an authorization code) means one copy was
 * stolen: the session it belongs to ends, and the revocation is a security event.
 */
export async function endReusedSession(
  deps: Pick<LoginDeps, "sessions" | "events">,
  session: { sub: string; sid: string },
  clientId: string,
  reason: "refresh_token_reuse" | "authorization_code_reuse",
  now: number,
): Promise<void> {
  await deps.sessions.endSession(session.sub, session.sid);
  await deps.events.record({
    sbj: session.sub,
    ts: now * 1000,
    type: "session_revoked",
    cId: clientId,
    sid: session.sid,
    result: reason,
  });
}
