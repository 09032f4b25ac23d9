import { randomBytes } from "node:crypto";
import type { Account } from "../accounts/account";
import { normalizeEmail, normalizePhone } from "../accounts/contacts";
import { SUB_PATTERN } from "../accounts/new-account";
import { DEFAULT_SCRYPT, hashPassword, type PasswordHash, verifyPassword } from "../credentials/password-hash";
import { hourOf, refusalBeforeCheck, waitAfter } from "./brute-force";
import type { LoginRepository, LoginSnapshot } from "./ports";

const SUB = new RegExp(SUB_PATTERN);

// A real hash of nothing, so an unknown user costs what a wrong password costs.
let dummyHash: Promise<PasswordHash> | undefined;
function dummy(): Promise<PasswordHash> {
  dummyHash ??= hashPassword(randomBytes(16).toString("hex"), DEFAULT_SCRYPT);
  return dummyHash;
}

export type PasswordVerdict =
  | { ok: true; account: Account; snapshot: LoginSnapshot }
  /** `refused`: not even tried (brute-force wait or cap); `wrong`: unknown user or wrong password. */
  | { ok: false; why: "refused"; message: string }
  | { ok: false; why: "wrong"; account?: Account };

/**
 * What a login (sub, e-mail or phone) names, read with its failure counters: the e-mail
 * or phone claim is followed to the account.
 */
export async function loginSnapshot(
  logins: LoginRepository,
  username: string,
  ip: string | undefined,
  now: number,
): Promise<LoginSnapshot> {
  const login = username.trim();
  const hour = hourOf(now);
  const snapshot = await logins.snapshot(
    {
      sub: SUB.test(login) ? login : undefined,
      email: login.includes("@") ? normalizeEmail(login) : undefined,
      phone: normalizePhone(login),
    },
    ip,
    hour,
  );
  const owner = snapshot.ownerByEmail ?? snapshot.ownerByPhone;
  if (snapshot.account || !owner) return snapshot;
  const ipHourly = snapshot.counters.ipHourly;
  const followed = await logins.snapshot({ sub: owner }, ip, hour);
  followed.counters.ipHourly = Math.max(followed.counters.ipHourly, ipHourly);
  return { ...followed, ownerByEmail: snapshot.ownerByEmail, ownerByPhone: snapshot.ownerByPhone };
}

/**
 * Every password guess goes through here (password grant, HTTP Basic user login, ...):
 * the login is the sub, an e-mail or a phone; failures are counted per account and per
 * address in DynamoDB, waits and caps apply before the password is even checked, and
 * an unknown user costs one scrypt like a known one.
 */
export async function verifyUserPassword(
  logins: LoginRepository,
  username: string,
  password: string,
  ip: string,
  now: number,
): Promise<PasswordVerdict> {
  const snapshot = await loginSnapshot(logins, username, ip, now);
  const refusal = refusalBeforeCheck(snapshot.counters, now);
  if (refusal) return { ok: false, why: "refused", message: refusal };
  const matches = await verifyPassword(password, snapshot.credential ?? (await dummy()));
  const account = snapshot.account;
  if (!account || !snapshot.credential || !matches) {
    await logins.recordFailure(account?.sub, ip, now, waitAfter);
    return { ok: false, why: "wrong", account };
  }
  return { ok: true, account, snapshot };
}
