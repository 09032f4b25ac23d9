import type { ServiceSettings } from "../../config/settings";
import type { Account } from "../accounts/account";
import type { SecurityEventLog } from "../audit/ports";
import { codeMatches, codeState, generateCode, storeCode } from "../codes/one-time-code";
import { hourOf } from "../login/brute-force";
import type { LoginRepository, LoginSnapshot } from "../login/ports";
import { migrateUser, type UserMigrationDeps } from "../login/user-migration";
import { loginSnapshot } from "../login/verify-user-password";
import type { Courier, Language } from "../messages/ports";
import { changePassword, type PasswordChangeDeps } from "./change-password";
import type { PasswordResetRecord, PasswordResetRepository } from "./ports";

/**
 * Forgot password (docs/sign-in.md): a code goes to a confirmed e-mail or phone of the
 * account, then a new password is set under the policy. Every answer is the same whether
 * or not the login names an account, and whether or not a code went out.
 */

export interface PasswordResetDeps extends PasswordChangeDeps {
  resets: PasswordResetRepository;
  logins: LoginRepository;
  events: SecurityEventLog;
  courier: Courier;
  settings: ServiceSettings;
  /** Creates accounts the userMigration hook vouches for; unset: no migration. */
  migration?: UserMigrationDeps;
}

/** Codes an account is sent per hour, as for registration resends: no flooding through the form. */
export const MAX_RESET_CODES_PER_HOUR = 5;

export interface ResetCaller {
  clientId: string;
  language: Language;
  ip?: string;
  userAgent?: string;
}

/** A code was wrong, spent or expired; the page says only that. */
export class ResetCodeError extends Error {
  constructor() {
    super("the code is not valid");
    this.name = "ResetCodeError";
  }
}

/** The confirmed contact the code goes to: the one typed as the login, else e-mail before phone. */
function contactFor(snapshot: LoginSnapshot, account: Account): PasswordResetRecord["field"] | undefined {
  const email = account.email?.verified ? "email" : undefined;
  const phone = account.phone_number?.verified ? "phone_number" : undefined;
  if (snapshot.ownerByEmail === account.sub) return email;
  if (snapshot.ownerByPhone === account.sub) return phone;
  return email ?? phone;
}

/** Accounts that may not sign in get no code: a new password would not let them in. */
function mayReset(account: Account): boolean {
  return !account.locked && account.state?.name !== "inactivityLock" && !account.methodsLocked?.includes("password");
}

/**
 * Sends a code when the login names an account with a confirmed contact; says nothing either way.
 * An unknown login is first offered to the userMigration hook (without a password): the account
 * it vouches for is created without one, and the code goes out. Throws HookFailedError.
 */
export async function requestPasswordReset(
  login: string,
  caller: ResetCaller,
  deps: PasswordResetDeps,
  now: number,
): Promise<void> {
  let snapshot = await loginSnapshot(deps.logins, login, [], now);
  const migration = { trigger: "forgotPassword", username: login, ...caller } as const;
  if (!snapshot.account && deps.migration && (await migrateUser(deps.migration, migration, now)))
    snapshot = await loginSnapshot(deps.logins, login, [], now);
  const account = snapshot.account;
  const field = account && mayReset(account) ? contactFor(snapshot, account) : undefined;
  if (!account || !field) return;
  const code = generateCode(deps.settings.codes.length);
  const record: PasswordResetRecord = {
    sub: account.sub,
    field,
    createdAt: now,
    ...storeCode(code, deps.settings.codes.ttlSeconds, deps.settings.codes.attempts, now),
  };
  // The cap is taken before the code leaves, so racing requests cannot send more than it allows.
  const stored = await deps.resets.commit([
    deps.resets.sendCountedItem(account.sub, hourOf(now), MAX_RESET_CODES_PER_HOUR),
    deps.resets.putItem(record),
    deps.events.putItem({
      sbj: account.sub,
      ts: now * 1000,
      type: "password_reset",
      cId: caller.clientId,
      ip: caller.ip,
      ua: caller.userAgent,
      result: "code_sent",
      prms: { channel: field === "email" ? "email" : "sms" },
    }),
  ]);
  if (!stored) return;
  const to = account[field]?.value as string;
  const minutes = Math.ceil(deps.settings.codes.ttlSeconds / 60);
  try {
    await deps.courier.send(
      field === "email" ? "email" : "sms",
      to,
      "password-reset-code",
      { code, minutes },
      caller.language,
    );
  } catch (error) {
    // Telling the user would tell anyone that the account exists; the log tells the operator.
    deps.log("password reset code not sent", { sub: account.sub, error: (error as Error).message });
  }
}

/**
 * Sets the new password when the code is the account's latest, unexpired, with attempts
 * left; sessions end, as after any reset. A policy violation leaves the code usable.
 */
export async function finishPasswordReset(
  input: { login: string; code: string; password: string },
  caller: ResetCaller,
  deps: PasswordResetDeps,
  now: number,
): Promise<{ sub: string }> {
  const snapshot = await loginSnapshot(deps.logins, input.login, [], now);
  const account = snapshot.account;
  const stored = account && mayReset(account) ? await deps.resets.get(account.sub) : undefined;
  if (!account || !stored || codeState(stored, now) !== "valid") throw new ResetCodeError();
  if (!codeMatches(input.code, stored)) {
    await deps.resets.recordWrongCode(account.sub, stored.digest);
    throw new ResetCodeError();
  }
  await changePassword(
    {
      sub: account.sub,
      mode: "system",
      password: input.password,
      resetSessions: true,
      language: caller.language,
      event: { cId: caller.clientId, ip: caller.ip, ua: caller.userAgent },
      via: "reset",
      snapshot,
      // A reset proves the contact: the failures a guesser piled up (the consecutive cap) are forgotten.
      flowItems: [deps.resets.consumeItem(account.sub, stored.digest, now), deps.logins.clearFailuresItem(account.sub)],
      refused: () => new ResetCodeError(),
    },
    deps,
  );
  return { sub: account.sub };
}
