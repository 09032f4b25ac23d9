import type { Account, AccountState } from "../accounts/account";
import type { AccountSecurityRepository } from "../accounts/ports";
import { problems } from "../errors";
import type { SessionRepository } from "../sessions/ports";

/** interface §3.1: an account never signed in and never changed is `initial`. */
export function stateView(account: Account): AccountState {
  return account.state ?? { name: "initial" };
}

/**
 * interface §3.1 / 4.13: `untouchable` with or without `till`; `till` at or before now ends
 * the status, and the account counts as active from now on.
 */
export async function setUntouchable(
  store: AccountSecurityRepository,
  sub: string,
  till: number | undefined,
  now: number,
) {
  const ended = till !== undefined && till <= now;
  const state: AccountState = ended
    ? { name: "active", checkedOn: now }
    : till === undefined
      ? { name: "untouchable" }
      : { name: "untouchable", till };
  // Never lockable while untouchable for good; lockable again from the end otherwise.
  const candidateFrom = ended ? now : till;
  if (!(await store.setState(sub, state, candidateFrom))) throw problems.unknownUser(sub);
}

/**
 * The inactivity job (docs/deployment.md, daily): accounts inactive for lockAfterDays get
 * `inactivityLock`. It reads only the inactivity index, never the table. A locked
 * account's sessions end, as with any lock, so their clients hear of it (Back-Channel Logout).
 */
export async function lockInactiveAccounts(
  store: AccountSecurityRepository,
  sessions: Pick<SessionRepository, "endSessionsAndDevices">,
  lockAfterDays: number,
  shards: number,
  now: number,
): Promise<{ examined: number; locked: number }> {
  if (lockAfterDays <= 0) return { examined: 0, locked: 0 };
  const cutoff = now - lockAfterDays * 86_400;
  let examined = 0;
  let locked = 0;
  for (let shard = 0; shard < shards; shard++) {
    for (const candidate of await store.inactiveCandidates(shard, cutoff)) {
      examined += 1;
      if (!(await store.lockForInactivity(candidate.sub, candidate.since, now))) continue;
      locked += 1;
      await sessions.endSessionsAndDevices(candidate.sub, { session: () => true, device: () => false });
    }
  }
  return { examined, locked };
}
