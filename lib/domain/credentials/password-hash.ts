import { randomBytes, scrypt, timingSafeEqual } from "node:crypto";
import { availableParallelism } from "node:os";
import pLimit from "p-limit";
import { type ForeignPasswordHash, verifyForeignHash } from "./foreign-hash";
import { overBound } from "./hash-bounds";

/**
 * Password hashes: scrypt through node:crypto (docs/architecture.md). Parameters are stored with
 * each hash so they can be raised later; hashes imported from other systems are replaced at
 * the first sign-in (needsRehash).
 */

export interface ScryptParams {
  N: number;
  r: number;
  p: number;
  keyLength: number;
}

export interface PasswordHash extends ScryptParams {
  alg: "scrypt";
  salt: string;
  hash: string;
  /**
   * Imported from a system that hashed the password's bytes as typed; ours hash its NFKC
   * form. Verified as it was made, then replaced at the first sign-in.
   */
  unnormalized?: true;
}

/** A credential as stored: ours, or one imported from another system until its first sign-in. */
export type StoredPasswordHash = PasswordHash | ForeignPasswordHash;

/** OWASP's scrypt recommendation: N=2^17, r=8, p=1. */
export const DEFAULT_SCRYPT: ScryptParams = { N: 2 ** 17, r: 8, p: 1, keyLength: 32 };

// scrypt runs on libuv's pool (4 threads), like WebCrypto's signing. More hashes at once
// than cores finish no sooner, and would leave token signing queued behind them.
const hashing = pLimit(Math.max(1, Math.min(availableParallelism(), 3)));

type DeriveParams = ScryptParams & { unnormalized?: true };

function derive(password: string, salt: Buffer, params: DeriveParams): Promise<Buffer> {
  return hashing(() => deriveNow(password, salt, params));
}

function deriveNow(password: string, salt: Buffer, params: DeriveParams): Promise<Buffer> {
  return new Promise((resolvePromise, reject) => {
    scrypt(
      params.unnormalized ? password : password.normalize("NFKC"),
      salt,
      params.keyLength,
      // scrypt needs 128 * N * r bytes; Node's default ceiling is 32 MiB.
      { N: params.N, r: params.r, p: params.p, maxmem: 256 * params.N * params.r + 1024 * 1024 },
      (error, key) => (error ? reject(error) : resolvePromise(key)),
    );
  });
}

export async function hashPassword(password: string, params: ScryptParams = DEFAULT_SCRYPT): Promise<PasswordHash> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, params);
  return { alg: "scrypt", ...params, salt: salt.toString("base64"), hash: key.toString("base64") };
}

/** Told of each stored hash refused for its cost: the wiring logs it (never the hash itself). */
export type OverBoundReport = (message: string, fields: { alg: string; bound: string; sub?: string }) => void;
let reportOverBound: OverBoundReport = () => {};

export function reportHashesOverBounds(report: OverBoundReport): void {
  reportOverBound = report;
}

/**
 * Whether the password matches the stored hash. A hash over the cost bounds (hash-bounds.ts)
 * matches nothing and is not computed: it came around the import's checks. `sub` names the
 * owner in that report.
 */
export async function verifyPassword(password: string, stored: StoredPasswordHash, sub?: string): Promise<boolean> {
  const over = overBound(stored);
  if (over) {
    reportOverBound("stored password hash over the cost bounds, not verified", {
      alg: stored.alg,
      bound: over,
      ...(sub && { sub }),
    });
    return false;
  }
  if (stored.alg !== "scrypt") return verifyForeignHash(password, stored);
  const expected = Buffer.from(stored.hash, "base64");
  const actual = await derive(password, Buffer.from(stored.salt, "base64"), stored);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/**
 * A hash a sign-in replaces with ours: another system's (another algorithm, or scrypt of the
 * unnormalized password). Our own scrypt hashes keep the parameters they were made with.
 */
export function needsRehash(stored: StoredPasswordHash): boolean {
  return stored.alg !== "scrypt" || stored.unnormalized === true;
}
