import { createHash, randomBytes } from "node:crypto";
import type { ClientRecord } from "../clients/client";
import { digestSecret, generateSecret } from "../credentials/secret-digest";
import { OAuthError } from "../errors";
import { hookAnswer } from "../hooks/fail-closed";
import { addedClaims } from "../hooks/token-claims";
import { endReusedSession } from "../login/refresh-grant";
import { consoleTokenRole } from "../operators/operator";
import { consentScope } from "../resources/resource";
import { backchannelLogoutOf } from "../sessions/backchannel-logout";
import { openSession } from "../sessions/open-session";
import { newRefreshToken } from "../sessions/refresh-token";
import type { LoginDeps } from "../sign-in/login-commit";
import type { PendingWrite } from "../unit-of-work";
import type { AuthorizationRequest } from "./authorization-request";
import type { LiveBrowserSession } from "./browser-session";
import { hookOrganization, organizationClaims } from "./organization";
import type { AuthorizationCodeRecord, AuthorizationCodeRepository } from "./ports";
import { claimsFor } from "./scopes";

/** RFC 6749 4.1.2 recommends at most ten minutes; a browser redirect needs seconds. */
export const CODE_TTL_SECONDS = 60;

export interface CodeGrantDeps extends LoginDeps {
  codes: AuthorizationCodeRepository;
  /** The management API's resource identifier (the issuer). */
  ownResource: string;
}

/** Who signed in the browser, and when and how, as a code or a device approval carries it. */
export function signInOf(browser: LiveBrowserSession) {
  const { session, account } = browser;
  return {
    sub: account.sub,
    browserSid: session.sid,
    uaId: session.uaId ?? randomBytes(12).toString("base64url"),
    authTime: session.authTime ?? session.createdAt,
    amr: session.amr ?? ["pwd"],
  };
}

/** A new code for a signed-in browser; only its digest is stored. */
export async function issueCode(
  codes: AuthorizationCodeRepository,
  request: AuthorizationRequest,
  browser: LiveBrowserSession,
  now: number,
): Promise<string> {
  const code = generateSecret();
  await codes.create({
    codeHash: digestSecret(code),
    clientId: request.clientId,
    redirectUri: request.redirectUri,
    ...(request.codeChallenge && { codeChallenge: request.codeChallenge }),
    ...signInOf(browser),
    scopes: request.scopes,
    ...(request.nonce !== undefined && { nonce: request.nonce }),
    ...(request.resource && { resource: request.resource }),
    ...(request.claims && { claims: request.claims }),
    ...(request.dpopJkt && { dpopJkt: request.dpopJkt }),
    ...(request.organization && { organization: request.organization }),
    expiresAt: now + CODE_TTL_SECONDS,
    status: "issued",
  });
  return code;
}

/** RFC 7636 4.6: BASE64URL(SHA256(code_verifier)) equals the challenge. */
function verifierMatches(verifier: string, challenge: string): boolean {
  return createHash("sha256").update(verifier, "ascii").digest("base64url") === challenge;
}

const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

export interface CodeGrantResponse {
  access_token: string;
  token_type: "Bearer" | "DPoP";
  expires_in: number;
  scope: string;
  refresh_token: string;
  id_token?: string;
}

/**
 * grant_type=authorization_code (RFC 6749 4.1.3, RFC 7636). The code is single use: a
 * second exchange ends the session the first one opened, so its tokens die (RFC 9700 4.5).
 */
export async function authorizationCodeGrant(
  client: ClientRecord,
  form: { code?: unknown; redirect_uri?: unknown; code_verifier?: unknown; resource?: unknown },
  deps: CodeGrantDeps,
): Promise<CodeGrantResponse> {
  const now = (deps.now ?? (() => Math.floor(Date.now() / 1000)))();
  if (typeof form.code !== "string" || form.code === "" || form.code.length > 128)
    throw new OAuthError("invalid_request", "code is required");
  const codeHash = digestSecret(form.code);
  const record = await deps.codes.get(codeHash);
  if (!record || record.clientId !== client.clientId) throw new OAuthError("invalid_grant", "the code is not valid");
  if (record.status === "used") {
    await revokeFirstExchange(record, client, deps, now);
    throw new OAuthError("invalid_grant", "the code was already used; the tokens it gave are revoked");
  }
  if (record.expiresAt <= now) throw new OAuthError("invalid_grant", "the code has expired");
  if (form.redirect_uri !== record.redirectUri)
    throw new OAuthError("invalid_grant", "redirect_uri differs from the authorization request");
  // RFC 8707 2.2: the token endpoint's `resource` may only repeat what the user allowed.
  if (form.resource !== undefined && form.resource !== (record.resource ?? deps.ownResource))
    throw new OAuthError("invalid_target", "the resource differs from the authorization request");
  if (record.codeChallenge) {
    if (typeof form.code_verifier !== "string" || !VERIFIER.test(form.code_verifier))
      throw new OAuthError("invalid_grant", "code_verifier is required (PKCE)");
    if (!verifierMatches(form.code_verifier, record.codeChallenge))
      throw new OAuthError("invalid_grant", "code_verifier does not match the code challenge");
  } else if (form.code_verifier !== undefined) {
    // RFC 9700 2.1.1: a verifier without a challenge is a downgrade attempt.
    throw new OAuthError("invalid_grant", "code_verifier sent for a code issued without PKCE");
  }
  if (record.dpopJkt !== undefined && record.dpopJkt !== deps.dpopKey)
    throw new OAuthError("invalid_dpop_proof", "the code is bound to a DPoP key (dpop_jkt): send a proof made with it");

  return tokensForSignIn(client, record, (sid) => deps.codes.redeemItem(codeHash, sid, now), "authorization_code", {
    ...deps,
    now: () => now,
  });
}

/**
 * What a user's browser sign-in approved for a client, as an authorization code or an
 * approved device authorization carries it.
 */
export type ApprovedSignIn = Pick<
  AuthorizationCodeRecord,
  "sub" | "browserSid" | "uaId" | "scopes" | "authTime" | "amr" | "resource" | "nonce" | "claims" | "organization"
>;

/**
 * The tokens of an approved sign-in: a session of the client, opened in one transaction
 * with `redeem` (the code or device authorization, spent once) and its consent and event.
 */
export async function tokensForSignIn(
  client: ClientRecord,
  record: ApprovedSignIn,
  redeem: (sid: string) => PendingWrite,
  grant: "authorization_code" | "device_code",
  deps: LoginDeps,
): Promise<CodeGrantResponse> {
  const now = (deps.now ?? (() => Math.floor(Date.now() / 1000)))();
  const { session: browser, account } = await deps.sessions.sessionAndAccount(record.sub, record.browserSid);
  if (!browser || browser.expiresAt <= now || !account) throw new OAuthError("invalid_grant", "the sign-in has ended");
  if (account.locked || account.state?.name === "inactivityLock")
    throw new OAuthError("invalid_grant", "the account is locked");

  const { refreshTtlSeconds, accessTtlSeconds } = deps.settings.tokens;
  const opened = openSession({
    sub: record.sub,
    clientId: client.clientId,
    ip: browser.ip,
    userAgent: browser.userAgent,
    now,
    ttlSeconds: refreshTtlSeconds,
  });
  const refresh = newRefreshToken(record.sub, opened.record.sid);
  const session = {
    ...opened.record,
    uaId: record.uaId,
    scopes: record.scopes,
    refreshHash: refresh.hash,
    refreshGeneration: 0,
    authTime: record.authTime,
    amr: record.amr,
    browserSid: record.browserSid,
    ...(record.resource && { audience: record.resource }),
    ...(record.claims?.userinfo.length && { userinfoClaims: record.claims.userinfo }),
    ...(record.organization && { organization: record.organization }),
    // RFC 9449 5: a public client's refresh token is only as good as its key; a confidential client authenticates anyway.
    ...(client.public && deps.dpopKey && { dpopJkt: deps.dpopKey }),
    ...backchannelLogoutOf(client),
  };
  const org = await organizationClaims(deps.organizationRoles, record.sub, record.organization);
  // Before the code is redeemed: a failed hook must not spend it.
  const request = {
    clientId: client.clientId,
    grant,
    sub: record.sub,
    scopes: record.scopes,
    ...hookOrganization(org),
  } as const;
  const added = await hookAnswer(() => addedClaims(deps.hooks, request));
  const operator = await consoleTokenRole(deps.rights, client.clientId, record.sub);
  const committed = await deps.logins.commit([
    redeem(session.sid),
    deps.sessions.putItem(session),
    deps.consents.grantItem(
      record.sub,
      client.clientId,
      record.scopes.map((s) => consentScope(s, record.resource)),
      now * 1000,
    ),
    deps.events.putItem({
      sbj: record.sub,
      ts: now * 1000,
      type: "token_issued",
      cId: client.clientId,
      ip: browser.ip,
      ua: browser.userAgent,
      sid: session.sid,
      result: "ok",
      prms: { grant, scopes: record.scopes },
    }),
  ]);
  // Another exchange of the same code (or device authorization) won the race: this one is the second use.
  if (!committed) throw new OAuthError("invalid_grant", "the grant was already used");

  const { token } = await deps.accessTokens.issue({
    sub: record.sub,
    clientId: client.clientId,
    scopes: record.scopes,
    ttlSeconds: accessTtlSeconds,
    sid: session.sid,
    uaId: record.uaId,
    audience: record.resource,
    extraClaims: { ...added.access, ...org },
  });
  const idToken = record.scopes.includes("openid")
    ? await deps.idToken({
        sub: record.sub,
        clientId: client.clientId,
        sid: record.browserSid,
        uaId: record.uaId,
        authTime: record.authTime,
        nonce: record.nonce,
        accessToken: token,
        amr: record.amr,
        claims: {
          ...added.id,
          ...claimsFor(account, record.scopes, record.claims?.idToken),
          // The console shows who is signed in and what they may do; the API decides by itself.
          ...(operator && { svc_op: operator }),
          ...org,
        },
        alg: client.idTokenSignedResponseAlg,
      })
    : undefined;
  return {
    access_token: token,
    token_type: "Bearer",
    expires_in: accessTtlSeconds,
    scope: record.scopes.join(" "),
    refresh_token: refresh.token,
    ...(idToken && { id_token: idToken }),
  };
}

async function revokeFirstExchange(
  record: AuthorizationCodeRecord,
  client: ClientRecord,
  deps: CodeGrantDeps,
  now: number,
): Promise<void> {
  if (!record.sid) return;
  await endReusedSession(deps, { sub: record.sub, sid: record.sid }, client.clientId, "authorization_code_reuse", now);
}
