import { pbkdf2, timingSafeEqual } from "node:crypto";

/**
 * Password hashes made by other systems (docs/administration.md, import): kept as they came
 * until the account's first sign-in, which checks the password against them once and
 * replaces them with our scrypt hash. The libraries are loaded on first use, so sign-ins
 * against our own hashes never pay for them.
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

/** Whether the password matches a foreign hash; a malformed hash matches nothing. */
export async function verifyForeignHash(password: string, stored: ForeignPasswordHash): Promise<boolean> {
  switch (stored.alg) {
    case "bcrypt": {
      const { default: bcrypt } = await import("bcryptjs");
      return bcrypt.compare(password, stored.hash);
    }
    case "argon2id": {
      const { default: argon2 } = await import("hash-wasm/dist/argon2.umd.min.js");
      return argon2.argon2Verify({ password, hash: stored.hash }).catch(() => false);
    }
    case "pbkdf2-sha256": {
      const expected = Buffer.from(stored.hash, "base64");
      if (expected.length === 0) return false;
      const actual = await pbkdf2Key(password, stored, expected.length);
      return timingSafeEqual(actual, expected);
    }
  }
}
