import { randomBytes } from "node:crypto";
import type { Account } from "../accounts/account";
import { normalizeEmail, normalizePhone } from "../accounts/contacts";
import { SUB_PATTERN } from "../accounts/new-account";
import { DEFAULT_SCRYPT, hashPassword, type PasswordHash, verifyPassword } from "../credentials/password-hash";
import {
  type EngagedLimit,
  hourOf,
  LIMITS,
  limitEngaged,
  refusedBeforeCheck,
  THROTTLED,
  waitAfter,
} from "./brute-force";
import { HashGateBusy } from "./hash-gate";
import type { LoginRepository, LoginSnapshot, TakenAttempt } from "./ports";

const SUB = new RegExp(SUB_PATTERN);

// A real hash of nothing, so an unknown user costs what a wrong password costs.
let dummyHash: Promise<PasswordHash> | undefined;
function dummy(): Promise<PasswordHash> {
  dummyHash ??= hashPassword(randomBytes(16).toString("hex"), DEFAULT_SCRYPT);
  return dummyHash;
}

export type PasswordVerdict =
  | { ok: true; account: Account; snapshot: LoginSnapshot; attempt: TakenAttempt }
  /** `refused`: not even tried (a limit, or the hashing of strangers is busy); `wrong`: unknown user or wrong password. */
  | { ok: false; why: "refused"; message: string; busy?: boolean }
  /** `limit`: the limit this failure put the account or address under. */
  | { ok: false; why: "wrong"; account?: Account; limit?: EngagedLimit };

/**
 * What a login (sub, e-mail or phone) names, read with its failure counters: the e-mail
 * or phone claim is followed to the account.
 */
export async function loginSnapshot(
  logins: LoginRepository,
  username: string,
  addresses: string[],
  now: number,
): Promise<LoginSnapshot> {
  const login = username.trim();
  const hour = hourOf(now);
  const snapshot = await logins.snapshot(
    {
      sub: SUB.test(login) ? login : undefined,
      email: login.includes("@") ? normalizeEmail(login) : undefined,
      phone: normalizePhone(login),
      name: loginName(login),
    },
    addresses,
    hour,
  );
  const owner = snapshot.ownerByEmail ?? snapshot.ownerByPhone;
  if (snapshot.account || !owner) return snapshot;
  const ipHourly = snapshot.counters.ipHourly;
  const followed = await logins.snapshot({ sub: owner }, addresses, hour);
  followed.counters.ipHourly = Math.max(followed.counters.ipHourly, ipHourly);
  return { ...followed, ownerByEmail: snapshot.ownerByEmail, ownerByPhone: snapshot.ownerByPhone };
}

/**
 * A login name as its counters know it when it names no account: every spelling of one
 * phone or e-mail is one name, so varying them gains no guesses an account would not get.
 */
function loginName(login: string): string {
  return normalizePhone(login) ?? normalizeEmail(login) ?? login.toLowerCase();
}

/** Runs a hash, or refuses at once (HashGateBusy) when too many run for strangers already. */
export type HashGate = <T>(hash: () => Promise<T>) => Promise<T>;

/**
 * Every password guess goes through here (password grant, HTTP Basic user login, ...):
 * the login is the sub, an e-mail or a phone. One attempt is taken under every limit
 * (the account's or the unknown name's, the addresses') before the password is judged,
 * so guesses sent together cannot pass a limit; a right password gives it back. An
 * unknown user costs one scrypt like a known one, and every refusal reads the same.
 */
export async function verifyUserPassword(
  logins: LoginRepository,
  username: string,
  password: string,
  addresses: string[],
  now: number,
  gate: HashGate = (hash) => hash(),
): Promise<PasswordVerdict> {
  const snapshot = await loginSnapshot(logins, username, addresses, now);
  const refused = { ok: false, why: "refused", message: THROTTLED } as const;
  if (refusedBeforeCheck(snapshot.counters, now)) return refused;
  const account = snapshot.account;
  let judged: { attempt: TakenAttempt; matches: boolean } | undefined;
  try {
    judged = await gate(async () => {
      const attempt = await logins.takeAttempt(
        {
          counted: account ? { sub: account.sub } : { login: loginName(username.trim()) },
          addresses,
          now,
          hour: hourOf(now),
          seenConsecutive: snapshot.counters.consecutive,
        },
        LIMITS,
      );
      if (!attempt) return undefined;
      return { attempt, matches: await verifyPassword(password, snapshot.credential ?? (await dummy()), account?.sub) };
    });
  } catch (error) {
    if (error instanceof HashGateBusy) return { ...refused, message: error.message, busy: true };
    throw error;
  }
  if (!judged) return refused;
  const { attempt, matches } = judged;
  if (!account || !snapshot.credential || !matches) {
    await logins.settleFailure(attempt, waitOf(attempt, now));
    return { ok: false, why: "wrong", account, limit: limitEngaged(attempt.consecutive, snapshot.counters) };
  }
  return { ok: true, account, snapshot, attempt };
}

/** When a failed attempt's wait ends: 0 while failures are still free. */
export function waitOf(attempt: TakenAttempt, now: number): number {
  const wait = waitAfter(attempt.consecutive);
  return wait > 0 ? now + wait : 0;
}

/**
 * An attempt for a step that judges no password but must be counted like one (a code at the
 * hosted pages' second step, whose password was proved on the page before): the account read
 * fresh with its counters, and one attempt taken under the same limits a password guess takes.
 */
export async function takeAccountAttempt(
  logins: LoginRepository,
  sub: string,
  addresses: string[],
  now: number,
): Promise<
  | { ok: true; snapshot: LoginSnapshot; account: Account; attempt: TakenAttempt }
  | { ok: false; why: "unknown" | "refused" }
> {
  const snapshot = await logins.snapshot({ sub }, addresses, hourOf(now));
  if (!snapshot.account) return { ok: false, why: "unknown" };
  if (refusedBeforeCheck(snapshot.counters, now)) return { ok: false, why: "refused" };
  const attempt = await logins.takeAttempt(
    { counted: { sub }, addresses, now, hour: hourOf(now), seenConsecutive: snapshot.counters.consecutive },
    LIMITS,
  );
  return attempt ? { ok: true, snapshot, account: snapshot.account, attempt } : { ok: false, why: "refused" };
}
