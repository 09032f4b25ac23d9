import type { ClientRecord } from "../clients/client";
import { ApiError, OAuthError } from "../errors";
import { describeRequested, isOidcScope, parseScope } from "../permissions";
import type { ResourceRepository } from "../resources/ports";
import { audienceOf, resourceScopes, type Target, targetOf } from "../resources/target";
import { liveSession } from "../sessions/live-session";
import type { SessionRepository } from "../sessions/ports";
import type { TokenResponse } from "./client-credentials";
import {
  type AccessTokenClaims,
  type AccessTokenIssuer,
  type AccessTokenVerifier,
  type ActorClaim,
  MANAGEMENT_API_AUDIENCE,
} from "./ports";

/** RFC 8693 3: the one token type exchanged and issued here, our own access tokens. */
export const ACCESS_TOKEN_TYPE_URI = "urn:ietf:params:oauth:token-type:access_token";

export interface TokenExchangeDeps {
  tokens: AccessTokenIssuer;
  verifier: AccessTokenVerifier;
  sessions: Pick<SessionRepository, "sessionAndAccount">;
  resources: Pick<ResourceRepository, "get">;
  /** The management API's resource identifier (the issuer). */
  ownResource: string;
  ttlSeconds: number;
  now?: () => number;
}

export interface ExchangeResponse extends TokenResponse {
  issued_token_type: typeof ACCESS_TOKEN_TYPE_URI;
}

/** RFC 8693 2.2.2: a subject or actor token that is not valid or not acceptable is invalid_request. */
const refused = (description: string) => new OAuthError("invalid_request", description);

/** A token of the form's `field`, of the only type we take; a bad type is named without echoing it. */
function presented(form: Readonly<Record<string, unknown>>, field: "subject" | "actor"): string | undefined {
  const token = form[`${field}_token`];
  const type = form[`${field}_token_type`];
  if (token === undefined || token === "") {
    if (field === "actor" && type !== undefined) throw refused("actor_token_type is only sent with actor_token");
    return undefined;
  }
  if (typeof token !== "string") throw refused(`${field}_token must be a string`);
  if (type === undefined) throw refused(`${field}_token_type is required`);
  if (type !== ACCESS_TOKEN_TYPE_URI) throw refused(`${field}_token_type must be ${ACCESS_TOKEN_TYPE_URI}`);
  return token;
}

/** The claims of a token we signed; a forged, foreign or expired one is the caller's problem, not a 401. */
async function verified(deps: TokenExchangeDeps, token: string, field: "subject" | "actor") {
  try {
    return await deps.verifier.verify(token, null);
  } catch (error) {
    if (!(error instanceof ApiError && error.error === "bad_access_token")) throw error;
    const why = error.desc === "expired_access_token" ? "has expired" : "is not a valid access token of this issuer";
    throw refused(`the ${field} token ${why}`);
  }
}

/** The resource identifier a token's audience stands for: the issuer for our management API. */
const audienceUri = (claims: AccessTokenClaims, own: string) =>
  claims.aud === MANAGEMENT_API_AUDIENCE ? own : claims.aud;

/**
 * Narrower, never broader: a subset of the subject token's scopes that the target admits (a
 * registered resource its own; our API the permissions granted to the requester). None
 * asked: all of those.
 */
function exchangedScopes(subject: AccessTokenClaims, asked: unknown, target: Target, client: ClientRecord) {
  const held = parseScope(subject.scope);
  const admits = (s: string) => {
    if (isOidcScope(s)) return true;
    if (target.kind === "registered") return target.resource.scopes.some((d) => d.name === s);
    return target.kind === "listed" || client.scopes.includes(s);
  };
  if (asked === undefined) {
    const scopes = held.filter(admits);
    if (scopes.length === 0) throw new OAuthError("invalid_scope", "no scope of the subject token is valid here");
    return scopes;
  }
  const requested = typeof asked === "string" ? parseScope(asked) : [];
  if (requested.length === 0) throw new OAuthError("invalid_scope", "scope, when sent, names one or more scopes");
  const beyond = requested.filter((s) => !held.includes(s));
  if (beyond.length > 0)
    throw new OAuthError("invalid_scope", `the subject token does not carry: ${describeRequested(beyond)}`);
  if (target.kind === "registered") return resourceScopes(target.resource, requested);
  const notGranted = requested.filter((s) => !admits(s));
  if (notGranted.length > 0)
    throw new OAuthError("invalid_scope", `not granted to this client: ${describeRequested(notGranted)}`);
  return requested;
}

/**
 * grant_type=urn:ietf:params:oauth:grant-type:token-exchange (RFC 8693, docs/sign-in.md): the
 * client trades an access token of ours for a narrower one for itself, acting as the subject
 * (impersonation) or, with an actor token of its own, on the subject's behalf (delegation,
 * `act`). The new token keeps the subject's session, so ending the session ends it too.
 */
export async function tokenExchangeGrant(
  deps: TokenExchangeDeps,
  client: ClientRecord,
  form: Readonly<Record<string, unknown>>,
): Promise<ExchangeResponse> {
  const now = (deps.now ?? (() => Math.floor(Date.now() / 1000)))();
  const subjectToken = presented(form, "subject");
  if (subjectToken === undefined) throw refused("subject_token is required");
  const actorToken = presented(form, "actor");
  if (form.requested_token_type !== undefined && form.requested_token_type !== ACCESS_TOKEN_TYPE_URI)
    throw refused(`requested_token_type must be ${ACCESS_TOKEN_TYPE_URI}`);
  if (form.resource !== undefined && form.audience !== undefined && form.resource !== form.audience)
    throw new OAuthError("invalid_target", "resource and audience name different targets");

  const subject = await verified(deps, subjectToken, "subject");
  const actor = actorToken === undefined ? undefined : await verified(deps, actorToken, "actor");
  // The requester proves it is the actor: an actor token of another client proves nothing.
  if (actor && actor.client_id !== client.clientId) throw refused("the actor token must be one issued to this client");
  const from = audienceUri(subject, deps.ownResource);
  if (subject.client_id !== client.clientId && !client.exchangeFrom.includes(from))
    throw refused(`this client may not exchange tokens for ${from}`);

  const asked = form.resource ?? form.audience ?? from;
  // Only a resource the client lists can pass (holder "client"), so only those are read.
  const listed = typeof asked === "string" && asked !== deps.ownResource && client.resources.includes(asked);
  const [registered, session] = await Promise.all([
    listed ? deps.resources.get(asked) : undefined,
    subject.sid ? liveSession(deps.sessions, subject.sub, subject.sid, now) : undefined,
  ]);
  if (subject.sid && !session) throw refused("the subject token's session has ended");
  const target = targetOf(client, asked, registered, "client", deps.ownResource);
  const scopes = exchangedScopes(subject, form.scope, target, client);

  const act: ActorClaim | undefined = actor
    ? { sub: actor.sub, client_id: actor.client_id, ...(subject.act && { act: subject.act }) }
    : subject.act;
  const audience = audienceOf(target);
  const { token } = await deps.tokens.issue({
    sub: subject.sub,
    clientId: client.clientId,
    scopes,
    ttlSeconds: deps.ttlSeconds,
    // Never outlives what it was made from.
    notAfter: subject.exp,
    ...(subject.sid && { sid: subject.sid }),
    ...(subject.ua_id && { uaId: subject.ua_id }),
    ...(audience !== undefined && { audience }),
    ...(act && { act }),
  });
  return {
    access_token: token,
    issued_token_type: ACCESS_TOKEN_TYPE_URI,
    token_type: "Bearer",
    expires_in: Math.min(deps.ttlSeconds, subject.exp - now),
    scope: scopes.join(" "),
  };
}
