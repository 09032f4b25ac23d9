import type { SecurityEventLog } from "../audit/ports";
import type { SecurityEvent } from "../audit/security-event";
import { problems } from "../errors";
import type { SessionRepository } from "../sessions/ports";
import type { AccountDataRepository } from "./data-ports";

/**
 * An account deleted by its owner (docs/account/data.md). With accountDeletion.graceDays 0
 * it goes at once; otherwise it is locked (nobody signs in), its sessions end, and the daily
 * job deletes it when its time comes; an operator unlocking it meanwhile cancels. Either
 * way the account is first locked and marked, so an interrupted deletion is finished by
 * the job. Its trail: one security event kept in its partition for audit.retentionDays,
 * and the table's removal of the profile, which the event stream publishes as account.deleted.
 */

export interface AccountDeletionDeps {
  data: Pick<AccountDataRepository, "scheduleDeletion" | "deleteAccount" | "dueDeletions" | "clearDeletion">;
  sessions: Pick<SessionRepository, "endSessionsAndDevices">;
  events: Pick<SecurityEventLog, "putItem">;
  graceDays: number;
}

/** Who asked: the event's fields other than the account and what happened. */
export type DeletionActor = Omit<SecurityEvent, "sbj" | "type" | "result" | "prms">;

/** The jobs function's own name in the events it records. */
export const JOBS_CLIENT = "svc-jobs";

/** Accounts one run of the daily job deletes at most; the rest wait for the next day. */
export const DELETIONS_PER_RUN = 500;

export type DeletionRequested = { deleted: true } | { deleted: false; at: number };

export async function requestAccountDeletion(
  deps: AccountDeletionDeps,
  sub: string,
  actor: DeletionActor,
  now: number,
): Promise<DeletionRequested> {
  const grace = Math.max(0, deps.graceDays);
  const at = now + grace * 86_400;
  const event = (type: string, prms?: SecurityEvent["prms"]) =>
    deps.events.putItem({ ...actor, sbj: sub, type, result: "ok", ...(prms && { prms }) });
  // With no grace the mark is only a guard: the deletion's own event replaces every other.
  const scheduled = await deps.data.scheduleDeletion(
    sub,
    at,
    now,
    grace > 0 ? [event("account_delete_scheduled", { deleteAt: at })] : [],
  );
  if (!scheduled) throw problems.unknownUser(sub);
  if (grace > 0) {
    await deps.sessions.endSessionsAndDevices(sub, { session: () => true, device: () => false });
    return { deleted: false, at };
  }
  // "gone": deleted meanwhile by a concurrent request; the outcome is the same.
  await deps.data.deleteAccount(sub, now, () => [event("account_delete", { requestedAt: now })]);
  return { deleted: true };
}

/**
 * The daily job's part: every account whose deletion is due goes; one an operator unlocked
 * meanwhile loses its mark instead (cancelled).
 */
export async function deleteDueAccounts(
  deps: AccountDeletionDeps,
  now: number,
): Promise<{ examined: number; deleted: number; cancelled: number }> {
  let deleted = 0;
  let cancelled = 0;
  const due = await deps.data.dueDeletions(now, DELETIONS_PER_RUN);
  for (const sub of due) {
    const outcome = await deps.data.deleteAccount(sub, now, (account) => [
      deps.events.putItem({
        sbj: sub,
        ts: now * 1000,
        type: "account_delete",
        cId: JOBS_CLIENT,
        result: "ok",
        ...(account.deletionScheduledAt !== undefined && { prms: { deleteAt: account.deletionScheduledAt } }),
      }),
    ]);
    if (outcome === "deleted") deleted += 1;
    else if (outcome === "not_due" && (await deps.data.clearDeletion(sub, now))) cancelled += 1;
  }
  return { examined: due.length, deleted, cancelled };
}

/**
 * An operator deletes an account (the management API, the admin console): at once, whatever
 * accountDeletion.graceDays says, as Cognito's AdminDeleteUser does; the owner's grace is
 * for changing one's mind, which an operator's call does not need.
 */
export function deleteAccountNow(deps: AccountDeletionDeps, sub: string, actor: DeletionActor, now: number) {
  return requestAccountDeletion({ ...deps, graceDays: 0 }, sub, actor, now);
}

/** The management API's deletion, as the users routes are handed it. */
export function accountRemovalUseCases(deps: AccountDeletionDeps) {
  return { deleteNow: (sub: string, actor: DeletionActor, now: number) => deleteAccountNow(deps, sub, actor, now) };
}

export type AccountRemovalUseCases = ReturnType<typeof accountRemovalUseCases>;
