import { randomUUID } from "node:crypto";
import type { ClientRecord, IdTokenAlg } from "../clients/client";

/**
 * OpenID Connect Back-Channel Logout 1.0: when a session of a client that registered an
 * address ends (logout, sessions reset, device deleted, account locked), the client is told
 * with a logout token, server to server, so it can end its own session too.
 */

/** Where its client hears of a session's end, and how its tokens are signed; kept with the session. */
export interface BackchannelLogout {
  uri: string;
  alg: IdTokenAlg;
}

/** What a client's sessions carry for Back-Channel Logout, when it registered an address. */
export function backchannelLogoutOf(client: Pick<ClientRecord, "backchannelLogoutUri" | "idTokenSignedResponseAlg">) {
  return client.backchannelLogoutUri
    ? { backchannelLogout: { uri: client.backchannelLogoutUri, alg: client.idTokenSignedResponseAlg } }
    : {};
}

/** A session that ended, as the table's stream shows it. */
export interface EndedSession {
  sub: string;
  sid: string;
  clientId: string;
  /** The browser session it was opened from: the `sid` its ID tokens carried. */
  browserSid?: string;
  backchannelLogout: BackchannelLogout;
}

export const LOGOUT_EVENT = "http://schemas.openid.net/event/backchannel-logout";
/** Logout tokens are used at once; two minutes cover clock skew (Back-Channel Logout 2.4). */
export const LOGOUT_TOKEN_TTL_SECONDS = 120;
/** Tries per client before giving up, within one delivery. */
export const LOGOUT_ATTEMPTS = 3;

export interface LogoutTokenClaims {
  aud: string;
  sub: string;
  sid: string;
  iat: number;
  exp: number;
  jti: string;
  events: Record<string, Record<string, never>>;
}

export interface BackchannelDeps {
  /** Signs the claims as a logout+jwt of this issuer with the algorithm. */
  sign(claims: LogoutTokenClaims, alg: IdTokenAlg): Promise<string>;
  /** Posts the token; true when the client answered 200 or 204. */
  post(uri: string, logoutToken: string): Promise<boolean>;
  pause(attempt: number): Promise<void>;
  now(): number;
}

/** 2.4: `sid` as the ID tokens of the session carried it; no nonce, ever. */
export function logoutTokenClaims(session: EndedSession, now: number): LogoutTokenClaims {
  return {
    aud: session.clientId,
    sub: session.sub,
    sid: session.browserSid ?? session.sid,
    iat: now,
    exp: now + LOGOUT_TOKEN_TTL_SECONDS,
    jti: randomUUID(),
    events: { [LOGOUT_EVENT]: {} },
  };
}

/**
 * Tells every client of the ended sessions, each a few times; what is still refused is
 * answered, never retried by holding back the stream (a client that is down would hold
 * back every event behind it).
 */
export async function tellEndedSessions(ended: readonly EndedSession[], deps: BackchannelDeps) {
  const refused: EndedSession[] = [];
  await Promise.all(
    ended.map(async (session) => {
      for (let attempt = 1; attempt <= LOGOUT_ATTEMPTS; attempt += 1) {
        if (attempt > 1) await deps.pause(attempt);
        const token = await deps.sign(logoutTokenClaims(session, deps.now()), session.backchannelLogout.alg);
        if (await deps.post(session.backchannelLogout.uri, token).catch(() => false)) return;
      }
      refused.push(session);
    }),
  );
  return { told: ended.length - refused.length, refused };
}
