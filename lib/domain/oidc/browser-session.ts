import type { Account } from "../accounts/account";
import { secretMatches } from "../credentials/secret-digest";
import type { SessionRecord, SessionRepository } from "../sessions/ports";

/**
 * The hosted pages' own session: a cookie that is one of the account's sessions (its
 * device recorded at sign-in), so sessions reset, a password change with resetSessions and
 * device deletion all end it (docs/sign-in.md).
 */

/** The application a browser session belongs to: no tokens are ever issued to it. */
export const HOSTED_CLIENT = "svc-hosted";
/** Like Keycloak's SSO Session Max: a browser signs in again after ten hours. */
export const BROWSER_SESSION_TTL_SECONDS = 10 * 3600;

/** `<sub base64url>.<sid>.<secret>`: the session's key and its secret, whose digest is stored. */
export function browserCookieValue(sub: string, sessionCookie: string): string {
  return `${Buffer.from(sub, "utf8").toString("base64url")}.${sessionCookie}`;
}

function parseCookie(value: string): { sub: string; sid: string; secret: string } | undefined {
  const parts = value.split(".");
  if (parts.length !== 3 || !parts.every((p) => /^[A-Za-z0-9_-]{1,200}$/.test(p))) return undefined;
  return { sub: Buffer.from(parts[0], "base64url").toString("utf8"), sid: parts[1], secret: parts[2] };
}

export interface LiveBrowserSession {
  session: SessionRecord;
  account: Account;
}

/** The session the cookie names, when its secret matches and it and its account are usable. */
export async function liveBrowserSession(
  sessions: SessionRepository,
  cookie: string | undefined,
  now: number,
): Promise<LiveBrowserSession | undefined> {
  const parsed = cookie === undefined ? undefined : parseCookie(cookie);
  if (!parsed) return undefined;
  const { session, account } = await sessions.sessionAndAccount(parsed.sub, parsed.sid);
  if (!session || !account || session.clientId !== HOSTED_CLIENT || session.expiresAt <= now) return undefined;
  if (!secretMatches(parsed.secret, session.secretHash)) return undefined;
  if (account.locked || account.state?.name === "inactivityLock") return undefined;
  return { session, account };
}
