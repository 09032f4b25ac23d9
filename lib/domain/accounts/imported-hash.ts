import { ARGON2ID_PATTERN, BCRYPT_PATTERN } from "../credentials/foreign-hash";
import { HASH_BOUNDS, overBound } from "../credentials/hash-bounds";
import type { StoredPasswordHash } from "../credentials/password-hash";

/**
 * Checks a password hash given as an object in an import line, and bounds its cost
 * (hash-bounds.ts, checked again at each verification): a sign-in must not need more
 * memory or time than a Lambda has because a file said so. Messages name fields, never values.
 */

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

const isInt = (value: unknown, min: number, max: number): value is number =>
  Number.isInteger(value) && (value as number) >= min && (value as number) <= max;
const isBase64 = (value: unknown): value is string => typeof value === "string" && BASE64.test(value);

function scrypt(value: Record<string, unknown>, field: string): StoredPasswordHash | string {
  const { N, r, p, salt, hash } = value;
  if (!isInt(N, 2, 2 ** 24) || (N & (N - 1)) !== 0) return `${field}.N must be a power of two`;
  if (!isInt(r, 1, 64) || !isInt(p, 1, 16)) return `${field}.r and ${field}.p must be small positive integers`;
  if (!isBase64(salt) || !isBase64(hash)) return `${field}.salt and ${field}.hash must be base64`;
  const bytes = Buffer.from(hash, "base64").length;
  const keyLength = value.keyLength ?? bytes;
  if (!isInt(keyLength, 16, 128) || keyLength !== bytes)
    return `${field}.keyLength must be the length of the hash in bytes`;
  // Ours (an export) carry keyLength; the standard form of other systems does not, and
  // hashed the password as typed (see PasswordHash.unnormalized).
  const foreign = value.keyLength === undefined || value.unnormalized === true;
  return { alg: "scrypt", N, r, p, keyLength, salt, hash, ...(foreign && { unnormalized: true as const }) };
}

/** The hash of an import line's field, or why it is refused: its shape, then its cost. */
export function importedHashObject(value: Record<string, unknown>, field: string): StoredPasswordHash | string {
  const hash = hashOfShape(value, field);
  if (typeof hash === "string") return hash;
  const over = overBound(hash);
  return over ? `${field} ${over}` : hash;
}

function hashOfShape(value: Record<string, unknown>, field: string): StoredPasswordHash | string {
  const known = new Set(["alg", "N", "r", "p", "keyLength", "iterations", "salt", "hash", "unnormalized"]);
  const unknown = Object.keys(value).find((key) => !known.has(key));
  if (unknown) return `unknown field "${unknown}" in ${field}`;
  switch (value.alg) {
    case "scrypt":
      return scrypt(value, field);
    case "bcrypt":
      return typeof value.hash === "string" && BCRYPT_PATTERN.test(value.hash)
        ? { alg: "bcrypt", hash: value.hash }
        : `${field}.hash must be a bcrypt string ($2a$, $2b$ or $2y$)`;
    case "argon2id":
      return typeof value.hash === "string" && ARGON2ID_PATTERN.test(value.hash)
        ? { alg: "argon2id", hash: value.hash }
        : `${field}.hash must be an argon2id PHC string ($argon2id$v=19$m=..,t=..,p=..$salt$hash)`;
    case "pbkdf2-sha256": {
      const { iterations, salt, hash } = value;
      if (!isInt(iterations, 1, HASH_BOUNDS.pbkdf2Work))
        return `${field}.iterations must be 1 to ${HASH_BOUNDS.pbkdf2Work}`;
      if (!isBase64(salt) || !isBase64(hash)) return `${field}.salt and ${field}.hash must be base64`;
      return { alg: "pbkdf2-sha256", iterations, salt, hash };
    }
    default:
      return `${field}.alg must be scrypt, bcrypt, pbkdf2-sha256 or argon2id`;
  }
}
