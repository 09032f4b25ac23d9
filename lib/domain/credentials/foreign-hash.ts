import { pbkdf2, timingSafeEqual } from "node:crypto";
import { availableParallelism } from "node:os";
import pLimit from "p-limit";
import type { ForeignHashPool } from "../../crypto/foreign-hash-pool";

/**
 * Password hashes made by other systems (docs/administration.md, import): kept as they came
 * until the account's first sign-in, which checks the password against them once and
 * replaces them with our scrypt hash. bcrypt and argon2id are verified in worker threads
 * whose libraries load on first use, so sign-ins against our own hashes never pay for them.
 */

export interface BcryptHash {
  alg: "bcrypt";
  /** The modular crypt string, `$2a$`, `$2b$` or `$2y$`, cost, salt and hash. */
  hash: string;
}

export interface Pbkdf2Hash {
  alg: "pbkdf2-sha256";
  iterations: number;
  /** Base64 of the salt's bytes (Django's text salt as UTF-8). */
  salt: string;
  /** Base64 of the derived key; its length is the key length. */
  hash: string;
}

export interface Argon2idHash {
  alg: "argon2id";
  /** The PHC string: `$argon2id$v=19$m=..,t=..,p=..$salt$hash`. */
  hash: string;
}

export type ForeignPasswordHash = BcryptHash | Pbkdf2Hash | Argon2idHash;

export const BCRYPT_PATTERN = /^\$2[aby]\$\d{2}\$[./A-Za-z0-9]{53}$/;
export const ARGON2ID_PATTERN = /^\$argon2id\$v=19\$m=\d+,t=\d+,p=\d+\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/;
const DJANGO_PBKDF2 = /^pbkdf2_sha256\$(\d+)\$([^$]+)\$([A-Za-z0-9+/]+={0,2})$/;

/**
 * One of the string forms other systems print (bcrypt, Django's PBKDF2, argon2id PHC);
 * undefined when the text is none of them. Never echoes the text.
 */
export function parseHashString(text: string): ForeignPasswordHash | undefined {
  if (BCRYPT_PATTERN.test(text)) return { alg: "bcrypt", hash: text };
  if (ARGON2ID_PATTERN.test(text)) return { alg: "argon2id", hash: text };
  const django = DJANGO_PBKDF2.exec(text);
  if (django) {
    return {
      alg: "pbkdf2-sha256",
      iterations: Number(django[1]),
      salt: Buffer.from(django[2], "utf8").toString("base64"),
      hash: django[3],
    };
  }
  return undefined;
}

function pbkdf2Key(password: string, stored: Pbkdf2Hash, length: number): Promise<Buffer> {
  return new Promise((done, fail) =>
    pbkdf2(password, Buffer.from(stored.salt, "base64"), stored.iterations, length, "sha256", (error, key) =>
      error ? fail(error) : done(key),
    ),
  );
}

// Foreign verifications at once, all formats together: one core stays free for the event
// loop (and our own scrypt), since a legacy hash may cost seconds.
const FOREIGN_CONCURRENCY = Math.max(1, Math.min(availableParallelism() - 1, 4));
const foreignHashing = pLimit(FOREIGN_CONCURRENCY);

let pool: Promise<ForeignHashPool> | undefined;
function workers(): Promise<ForeignHashPool> {
  pool ??= import("../../crypto/foreign-hash-pool").then(({ foreignHashPool }) => foreignHashPool(FOREIGN_CONCURRENCY));
  return pool;
}

/**
 * Whether the password matches a foreign hash, computed off the event loop (worker threads,
 * or libuv's pool for PBKDF2); a malformed hash matches nothing. Bounds are checked before
 * (password-hash.ts).
 */
export function verifyForeignHash(password: string, stored: ForeignPasswordHash): Promise<boolean> {
  return foreignHashing(() => verifyNow(password, stored));
}

async function verifyNow(password: string, stored: ForeignPasswordHash): Promise<boolean> {
  switch (stored.alg) {
    case "bcrypt":
    case "argon2id":
      return (await workers()).verify({ alg: stored.alg, password, hash: stored.hash });
    case "pbkdf2-sha256": {
      const expected = Buffer.from(stored.hash, "base64");
      if (expected.length === 0) return false;
      const actual = await pbkdf2Key(password, stored, expected.length);
      return timingSafeEqual(actual, expected);
    }
  }
}
