import { randomInt } from "node:crypto";
import type { ServiceSettings } from "../../config/settings";
import type { SecurityEventLog } from "../audit/ports";
import type { SecurityEvent } from "../audit/security-event";
import { hashPassword, verifyPassword } from "../credentials/password-hash";
import { ApiError, problems } from "../errors";
import { hourOf, LIMITS, refusedBeforeCheck, THROTTLED } from "../login/brute-force";
import type { AccountSnapshot, LoginRepository, LoginSnapshot } from "../login/ports";
import { waitOf } from "../login/verify-user-password";
import { type Courier, MessageNotSentError } from "../messages/ports";
import type { SessionRepository } from "../sessions/ports";
import type { PendingWrite } from "../unit-of-work";
import { checkPassword, generatePassword } from "./policy";
import type { BreachedPasswordCheck } from "./ports";
import { passwordPolicyError } from "./violations";

export interface PasswordChangeDeps {
  logins: LoginRepository;
  sessions: SessionRepository;
  events: SecurityEventLog;
  courier: Courier;
  settings: ServiceSettings;
  log: (message: string, fields: Record<string, unknown>) => void;
  /** Unset: new passwords are not looked up among breached ones. */
  breachedPasswords?: BreachedPasswordCheck;
}

export interface PasswordChangeInput {
  sub: string;
  mode: "user" | "system";
  /** User mode: the password the user types now. */
  current?: string;
  /**
   * User mode without `current`: the user proved who they are within the last minutes (the
   * account console's re-authentication), so no password is guessed here and none is counted.
   */
  reauthenticated?: boolean;
  /** Omitted: the service generates one that passes the policy. */
  password?: string;
  resetSessions: boolean;
  /** Name of the attribute holding the phone the (generated) password goes to. */
  sendPswdToAttr?: string;
  /** interface §4.2: a lead account changing it; it must hold change_password over the account. */
  lead?: string;
  /** SVC-CI-UA-ID: the device (and its sessions) kept when sessions are reset. */
  keepUaId?: string;
  language: "ru" | "en";
  event: Omit<SecurityEvent, "sbj" | "ts" | "type" | "result">;
  /**
   * What the change acts on, when read already (with the caller's session check, or beside
   * the keys): a login snapshot in user mode, where the current password is a guess;
   * otherwise the account snapshot (and the lead's right).
   */
  snapshot?: LoginSnapshot | AccountSnapshot;
  /** A flow's own writes (a reset code consumed) committed with the new password. */
  flowItems?: PendingWrite[];
  /** What to throw when the commit is refused; by default the account vanished. */
  refused?: () => Error;
  /** Recorded in the event: how the change came about (a forgotten-password reset). */
  via?: "reset";
}

function judgesGuesses(snapshot: LoginSnapshot | AccountSnapshot): snapshot is LoginSnapshot {
  return "counters" in snapshot;
}

/** The right a lead needs over an account to set its password (interface §4.2). */
export const SUBORDINATE_RIGHT = "change_password";

export function leadLacksRight(): ApiError {
  return new ApiError(
    403,
    "security_error",
    "access_denied",
    `the lead account lacks the right ${SUBORDINATE_RIGHT} over this account`,
    { params: { right: SUBORDINATE_RIGHT } },
  );
}

const addressesOf = (ip: string | undefined): string[] => (ip ? [ip] : []);

/** Attributes that can hold a phone number to send a password to. */
const PHONE_ATTRIBUTES = ["phone_number"] as const;

/**
 * interface §4.1 (and 4.2 through `mode: system`). The new credential, the profile and the
 * event are one transaction; sessions end afterwards (idempotent deletes). A generated
 * password is sent before anything is stored, so a failed SMS changes nothing.
 */
export async function changePassword(input: PasswordChangeInput, deps: PasswordChangeDeps): Promise<void> {
  const now = Math.floor(Date.now() / 1000);
  const guessed = input.mode === "user" && !input.reauthenticated;
  if (guessed && !input.current) {
    throw problems.wrongValues([{ error: "required", pos: "current", desc: "current is required in user mode" }]);
  }
  const leadRight = input.lead === undefined ? undefined : { lead: input.lead, right: SUBORDINATE_RIGHT };
  const snapshot =
    input.snapshot ??
    (guessed
      ? await deps.logins.snapshot({ sub: input.sub }, addressesOf(input.event.ip), hourOf(now))
      : await deps.logins.accountSnapshot(input.sub, leadRight));
  // The right first: a lead without it learns nothing about the account, not even whether it exists.
  if (leadRight && !snapshot.leadHoldsRight) throw leadLacksRight();
  const account = snapshot.account;
  if (!account) throw problems.unknownUser(input.sub);
  if (guessed) {
    // The current password is a password guess like a login: same counters, same waits.
    if (!judgesGuesses(snapshot)) throw new Error("a current password is judged with its failure counters");
    if (refusedBeforeCheck(snapshot.counters, now)) throw problems.invalidCredential(THROTTLED);
    // Taken before the hash, so current passwords guessed together cannot pass a limit.
    const attempt = await deps.logins.takeAttempt(
      {
        counted: { sub: account.sub },
        addresses: addressesOf(input.event.ip),
        now,
        hour: hourOf(now),
        seenConsecutive: snapshot.counters.consecutive,
      },
      LIMITS,
    );
    if (!attempt) throw problems.invalidCredential(THROTTLED);
    const ok = snapshot.credential && (await verifyPassword(input.current as string, snapshot.credential, account.sub));
    if (!ok) {
      await deps.logins.settleFailure(attempt, waitOf(attempt, now));
      throw problems.invalidCredential("the current password is wrong");
    }
    // The password was right: its attempt goes back in the change's own commit, or at once if the change stops before it.
    const back = { items: deps.logins.giveBackItems(attempt), given: false };
    try {
      await changeWithCredential(input, deps, account, snapshot, now, back);
    } catch (error) {
      if (!back.given) await deps.logins.giveBack(attempt, true);
      throw error;
    }
    return;
  }
  await changeWithCredential(input, deps, account, snapshot, now, { items: [], given: false });
}

/** The change once the caller may make it: the new password, the commit, the sessions, the notice. */
async function changeWithCredential(
  input: PasswordChangeInput,
  deps: PasswordChangeDeps,
  account: NonNullable<AccountSnapshot["account"]>,
  snapshot: AccountSnapshot,
  now: number,
  /** A guess's attempt to give back in the commit; `given` once it was. */
  attemptBack: { items: PendingWrite[]; given: boolean },
): Promise<void> {
  let phone: string | undefined;
  if (input.sendPswdToAttr !== undefined) {
    const attr = PHONE_ATTRIBUTES.find((a) => a === input.sendPswdToAttr);
    phone = attr ? account[attr]?.value : undefined;
    if (!phone) {
      throw new ApiError(
        400,
        "input_error",
        "wrong_value",
        "sendPswdToAttr must name an attribute holding the account's phone",
        {
          pos: "sendPswdToAttr",
        },
      );
    }
  }
  const policy = deps.settings.passwordPolicy;
  const context = {
    identity: { sub: account.sub, email: account.email?.value, phone: account.phone_number?.value },
    currentPassword: input.mode === "user" ? input.current : undefined,
    currentHash: snapshot.credential,
    history: snapshot.credential?.history ?? [],
    changedAt: snapshot.credential?.changedAt,
    now,
    breachedPasswords: deps.breachedPasswords,
  };
  let password = input.password;
  if (password === undefined) {
    password = generatePassword(policy, randomInt);
  } else {
    const violations = await checkPassword(password, policy, context);
    if (violations.length > 0) throw passwordPolicyError(violations);
  }
  // The hash (half a second of a worker thread) runs while the SMS goes out: it stores
  // nothing, so a failed send still changes nothing.
  const hashing = hashPassword(password);
  // Handled here too, so a hash failing while the send is awaited is not an unhandled rejection.
  hashing.catch(() => undefined);
  if (phone) {
    try {
      await deps.courier.send("sms", phone, "generated-password", { password }, input.language);
    } catch (error) {
      // No hash left running past the answer (a frozen Lambda would finish it in the next request's time).
      await hashing.catch(() => undefined);
      if (error instanceof MessageNotSentError) {
        throw new ApiError(
          502,
          "process_error",
          "message_not_sent",
          "the SMS with the password could not be sent; the password was not changed",
          {
            pos: "sendPswdToAttr",
          },
        );
      }
      throw error;
    }
  }
  const {
    history: _h,
    changedAt: _c,
    ...currentHash
  } = snapshot.credential ?? ({} as NonNullable<typeof snapshot.credential>);
  const history = snapshot.credential
    ? [currentHash as typeof currentHash, ...(snapshot.credential.history ?? [])].slice(0, policy.historyDepth)
    : [];
  const committed = await deps.logins.commit([
    deps.logins.credentialItem(account.sub, await hashing, now, history as never),
    deps.logins.passwordChangedItem(account.sub, now),
    deps.events.putItem({
      ...input.event,
      sbj: account.sub,
      ts: now * 1000,
      type: "password_change",
      result: "ok",
      prms: {
        mode: input.mode,
        generated: input.password === undefined,
        resetSessions: input.resetSessions,
        ...(input.via && { via: input.via }),
        ...(input.reauthenticated && { reauthenticated: true }),
      },
    }),
    ...(input.flowItems ?? []),
    ...attemptBack.items,
  ]);
  if (!committed) throw input.refused ? input.refused() : problems.unknownUser(input.sub);
  attemptBack.given = true;

  // The session reset and the notice are independent: both at once.
  const reset = input.resetSessions
    ? deps.sessions.endSessionsAndDevices(account.sub, {
        session: (s) => s.uaId === undefined || s.uaId !== input.keepUaId,
        device: (d) => d.id !== input.keepUaId,
      })
    : undefined;
  const email = account.email?.value;
  // A notice, not part of the change: the password is changed whether or not it arrives.
  const notice = email
    ? deps.courier
        .send("email", email, "password-changed", { when: minuteOf(now) }, input.language)
        .catch((error: unknown) => {
          deps.log("password change notice not sent", { sub: account.sub, error: (error as Error).message });
        })
    : undefined;
  // Both finish before the answer; a failed reset is still the answer (503), after the notice.
  const [resetDone] = await Promise.allSettled([reset, notice]);
  if (resetDone.status === "rejected") throw resetDone.reason;
}

/** "2026-11-22 01:08": the notice's time, to the minute (UTC). */
function minuteOf(now: number): string {
  return new Date(now * 1000).toISOString().replace("T", " ").slice(0, 16);
}
