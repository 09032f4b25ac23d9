import type { SessionRecord, SessionRepository } from "./ports";

/**
 * The session behind a user's token while it may still be used: not ended, not expired, its
 * account present and unlocked. One read (the session and the account together).
 */
export async function liveSession(
  sessions: Pick<SessionRepository, "sessionAndAccount">,
  sub: string,
  sid: string,
  now: number,
): Promise<SessionRecord | undefined> {
  const { session, account } = await sessions.sessionAndAccount(sub, sid);
  if (!session || !account || session.expiresAt <= now) return undefined;
  if (account.locked || account.state?.name === "inactivityLock") return undefined;
  return session;
}
