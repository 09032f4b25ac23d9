import { randomBytes } from "node:crypto";
import { normalizeEmail, normalizePhone } from "../accounts/contacts";
import { SUB_PATTERN } from "../accounts/new-account";
import { DEFAULT_SCRYPT, type PasswordHash, verifyPassword } from "./password-hash";

/**
 * A user's own login and password (HTTP Basic on v2 calls made for the user, later the
 * password grant). The login is the sub, else an e-mail address or a phone number of
 * the account, in that order.
 */

/** What a login resolves to: the account's sub, its lock and its password hash, if any. */
export interface LoginRecord {
  sub: string;
  locked: boolean;
  password?: PasswordHash;
}

/** Where a login is looked up; each candidate is tried, the sub first. */
export interface LoginCandidates {
  sub?: string;
  email?: string;
  phone?: string;
}

export interface LoginDirectory {
  findLogin(candidates: LoginCandidates): Promise<LoginRecord | undefined>;
}

/**
 * The outcome, with the reason kept for callers that count failures (brute-force
 * protection); callers answer every failure alike, so the reason never reaches a client.
 */
export type PasswordCheck =
  | { ok: true; sub: string }
  | { ok: false; reason: "unknown_login" | "no_password" | "wrong_password" }
  | { ok: false; reason: "locked"; sub: string };

const SUB = new RegExp(SUB_PATTERN);

// Checked against when there is no hash to check, so an unknown login costs what a
// known one costs and response times do not tell which logins exist.
const DUMMY_HASH: PasswordHash = {
  alg: "scrypt",
  ...DEFAULT_SCRYPT,
  salt: randomBytes(16).toString("base64"),
  hash: randomBytes(DEFAULT_SCRYPT.keyLength).toString("base64"),
};

export function loginCandidates(login: string): LoginCandidates {
  return {
    ...(SUB.test(login) && { sub: login }),
    ...(normalizeEmail(login) && { email: normalizeEmail(login) }),
    ...(normalizePhone(login) && { phone: normalizePhone(login) }),
  };
}

export async function authenticateUserPassword(
  directory: LoginDirectory,
  login: string,
  password: string,
): Promise<PasswordCheck> {
  const candidates = loginCandidates(login);
  const found = Object.keys(candidates).length > 0 ? await directory.findLogin(candidates) : undefined;
  if (!found?.password) {
    await verifyPassword(password, DUMMY_HASH);
    return { ok: false, reason: found ? "no_password" : "unknown_login" };
  }
  if (!(await verifyPassword(password, found.password))) return { ok: false, reason: "wrong_password" };
  // Told only after the right password, so a lock reveals nothing to a guesser.
  if (found.locked) return { ok: false, reason: "locked", sub: found.sub };
  return { ok: true, sub: found.sub };
}
