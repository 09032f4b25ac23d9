import type { ClientRecord } from "../clients/client";
import type { AccessTokenClaims } from "../oauth/ports";
import { liveSession } from "../sessions/live-session";
import type { SessionRepository } from "../sessions/ports";
import { parseRefreshToken } from "../sessions/refresh-token";

/** The claims of an access token we signed, whatever its audience; undefined when it is not one. */
export type AccessTokenReader = (token: string) => Promise<AccessTokenClaims | undefined>;

export interface TokenStatusDeps {
  sessions: SessionRepository;
  readAccessToken: AccessTokenReader;
}

/** RFC 7662 2.2: everything we can say about an active token; `{active: false}` otherwise. */
export type Introspection = { active: false } | ({ active: true; token_type: string } & Record<string, unknown>);

/**
 * RFC 7662 4: who may learn about a token. A refresh token is its client's alone; an access
 * token is also its audience's: a client that lists the token's `aud` among its registered
 * resources (RFC 8707) is taken as that resource server. The management API's own audience
 * is no resource URI, so its tokens are their client's alone.
 */
export function mayIntrospect(caller: Pick<ClientRecord, "clientId" | "resources">, client: string, aud?: unknown) {
  if (client === caller.clientId) return true;
  const audiences = Array.isArray(aud) ? aud : [aud];
  return audiences.some((a) => typeof a === "string" && caller.resources.includes(a));
}

/**
 * Introspection of an access or refresh token by `caller`. A user token is active only
 * while its session lives, so a sessions reset or a deleted device answers inactive at once.
 * A token the caller may not learn about answers inactive, as an unknown one does.
 */
export async function introspect(
  token: string,
  caller: Pick<ClientRecord, "clientId" | "resources">,
  deps: TokenStatusDeps,
  now: number,
): Promise<Introspection> {
  const refresh = parseRefreshToken(token);
  if (refresh) {
    const session = await liveSession(deps.sessions, refresh.sub, refresh.sid, now);
    if (!session?.refreshHash || session.refreshHash !== refresh.hash) return { active: false };
    if (!mayIntrospect(caller, session.clientId)) return { active: false };
    return {
      active: true,
      token_type: "refresh_token",
      sub: session.sub,
      client_id: session.clientId,
      scope: (session.scopes ?? []).join(" "),
      exp: session.expiresAt,
      iat: session.createdAt,
      sid: session.sid,
    };
  }
  const claims = await deps.readAccessToken(token);
  if (!claims || claims.exp <= now) return { active: false };
  // Before the session read: a token of another client costs nothing and tells nothing.
  if (!mayIntrospect(caller, claims.client_id, claims.aud)) return { active: false };
  if (claims.sid && !(await liveSession(deps.sessions, claims.sub, claims.sid, now))) return { active: false };
  // RFC 9449 6.2: a bound token says so, with its key.
  return { active: true, token_type: claims.cnf ? "DPoP" : "Bearer", ...claims };
}

/**
 * RFC 7009: ends the session behind a user's refresh or access token when the token is
 * the calling client's. Anything else is answered the same way, so nothing can be probed.
 * System tokens (client_credentials) hold no session and live until they expire.
 */
export async function revoke(token: string, client: ClientRecord, deps: TokenStatusDeps, now: number): Promise<void> {
  const refresh = parseRefreshToken(token);
  if (refresh) {
    const session = await liveSession(deps.sessions, refresh.sub, refresh.sid, now);
    // Digests on both sides: comparing them reveals nothing about the secret.
    if (session?.clientId === client.clientId && session.refreshHash === refresh.hash)
      await deps.sessions.endSession(refresh.sub, refresh.sid);
    return;
  }
  const claims = await deps.readAccessToken(token);
  if (claims?.sid && claims.client_id === client.clientId) await deps.sessions.endSession(claims.sub, claims.sid);
}
