import { createHmac, randomBytes, randomInt, timingSafeEqual } from "node:crypto";

/**
 * One-time confirmation codes (registration, contact change). Stored only as an HMAC
 * with a per-code salt, so a table dump shows no code; attempts and expiry are kept
 * beside it and enforced by conditional writes in the stores.
 */

export interface StoredCode {
  salt: string;
  digest: string;
  /** Unix time after which the code is refused. */
  exp: number;
  attemptsLeft: number;
}

export function generateCode(length: number): string {
  return String(randomInt(0, 10 ** length)).padStart(length, "0");
}

function digestOf(code: string, salt: string): string {
  return createHmac("sha256", Buffer.from(salt, "base64")).update(code, "utf8").digest("base64url");
}

export function storeCode(code: string, ttlSeconds: number, attempts: number, now: number): StoredCode {
  const salt = randomBytes(16).toString("base64");
  return { salt, digest: digestOf(code, salt), exp: now + ttlSeconds, attemptsLeft: attempts };
}

export function codeMatches(presented: string, stored: StoredCode): boolean {
  const a = Buffer.from(digestOf(presented.trim(), stored.salt));
  const b = Buffer.from(stored.digest);
  return a.length === b.length && timingSafeEqual(a, b);
}

export type CodeState = "valid" | "expired" | "no-attempts";

export function codeState(stored: StoredCode, now: number): CodeState {
  if (stored.attemptsLeft <= 0) return "no-attempts";
  if (now > stored.exp) return "expired";
  return "valid";
}
