import type { Account } from "../accounts/account";
import type { ClientRecord } from "../clients/client";
import { OAuthError } from "../errors";
import { hookAnswer } from "../hooks/fail-closed";
import { addedClaims } from "../hooks/token-claims";
import { claimsFor } from "../oidc/scopes";
import { describeRequested, isOidcScope, parseScope, permissionKind } from "../permissions";
import { backchannelLogoutOf } from "../sessions/backchannel-logout";
import { type LoginDeps, type LoginFlow, type LoginOrigin, type NewCredential, recordLogin } from "./login-commit";

export interface UserTokenResponse {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  scope: string;
  refresh_token: string;
  id_token: string;
}

/**
 * The user permissions asked for, all granted to the client, and any OpenID Connect scopes
 * (OIDC client libraries add `openid`): these release their claims in the ID token.
 */
export function userScopes(client: ClientRecord, scope: unknown): string[] {
  if (typeof scope !== "string" || parseScope(scope).length === 0) {
    throw new OAuthError("invalid_scope", "scope is required: one or more space-separated user permissions");
  }
  const requested = parseScope(scope);
  const notUser = requested.filter((s) => permissionKind(s) !== "user" && !isOidcScope(s));
  if (notUser.length > 0) throw new OAuthError("invalid_scope", `not user permissions: ${describeRequested(notUser)}`);
  const notGranted = requested.filter((s) => permissionKind(s) === "user" && !client.scopes.includes(s));
  if (notGranted.length > 0)
    throw new OAuthError("invalid_scope", `not granted to this client: ${describeRequested(notGranted)}`);
  return requested;
}

/** A sign-in straight to tokens (password and QR grants): the preTokenIssue hook, the login commit, then the tokens. */
export async function signInWithTokens(
  account: Account,
  client: ClientRecord,
  scopes: string[],
  origin: LoginOrigin,
  deps: LoginDeps,
  now: number,
  newCredential: NewCredential | undefined,
  flow: LoginFlow = { method: "password", items: [] },
): Promise<UserTokenResponse> {
  // Asked before the login is committed, so a failed hook leaves no session behind.
  const request = {
    clientId: client.clientId,
    grant: flow.method === "qr" ? "qr" : "password",
    sub: account.sub,
    scopes,
  } as const;
  const added = await hookAnswer(() => addedClaims(deps.hooks, request));
  const { session, uaId, refreshToken } = await recordLogin(
    account,
    {
      sessionClientId: client.clientId,
      clientId: client.clientId,
      scopes,
      amr: flow.amr ?? (flow.method === "password" ? ["pwd"] : [flow.method]),
      refresh: true,
      ...backchannelLogoutOf(client),
    },
    origin,
    deps,
    now,
    newCredential,
    flow,
  );
  const { accessTtlSeconds } = deps.settings.tokens;
  const { token } = await deps.accessTokens.issue({
    sub: account.sub,
    clientId: client.clientId,
    scopes,
    ttlSeconds: accessTtlSeconds,
    sid: session.sid,
    uaId,
    extraClaims: added.access,
  });
  return {
    access_token: token,
    token_type: "Bearer",
    expires_in: accessTtlSeconds,
    scope: scopes.join(" "),
    refresh_token: refreshToken as string,
    id_token: await deps.idToken({
      sub: account.sub,
      clientId: client.clientId,
      sid: session.sid,
      uaId,
      authTime: now,
      claims: { ...added.id, ...claimsFor(account, scopes) },
      alg: client.idTokenSignedResponseAlg,
    }),
  };
}
