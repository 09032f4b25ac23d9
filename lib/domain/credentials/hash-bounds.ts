import type { ForeignPasswordHash } from "./foreign-hash";

/**
 * How costly a stored hash may be, checked at import and again before each verification:
 * a file (or a record written around the import) must not buy days of CPU per guess.
 * The bounds admit the common legacy settings (docs/decisions/foreign-hash-bounds.md has
 * the measured cost of one verification at each bound).
 */
export const HASH_BOUNDS = {
  /** scrypt (128 * N * r) and argon2id (m) memory. */
  memoryBytes: 256 * 1024 * 1024,
  /** scrypt N * r * p: four times ours (N=2^17, r=8, p=1). */
  scryptWork: 2 ** 22,
  scryptLanes: 16,
  bcryptCost: 14,
  argon2Passes: 10,
  argon2Lanes: 8,
  /** argon2id t * m in bytes: libsodium's "moderate" (t=3, 256 MiB) fits, t=10 at 256 MiB does not. */
  argon2Work: 1024 * 1024 * 1024,
  /** PBKDF2 iterations times the 32-byte blocks of the derived key. */
  pbkdf2Work: 5_000_000,
} as const;

export interface Argon2Params {
  m: number;
  t: number;
  p: number;
  saltBytes: number;
  tagBytes: number;
}

const PHC = /^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;
const base64Bytes = (text: string) => Math.floor((text.length * 3) / 4);

/** The parameters of an argon2id PHC string; undefined when it is not one. */
export function argon2Params(hash: string): Argon2Params | undefined {
  const match = PHC.exec(hash);
  if (!match) return undefined;
  const [m, t, p] = [match[1], match[2], match[3]].map(Number);
  return { m, t, p, saltBytes: base64Bytes(match[4]), tagBytes: base64Bytes(match[5]) };
}

/** The cost of a modular crypt bcrypt string (`$2b$12$...`). */
export const bcryptCost = (hash: string): number => Number(hash.slice(4, 6));

const MIB = 1024 * 1024;

/** Every stored form: another system's, or scrypt (ours, or another system's standard form). */
export type BoundedHash = ForeignPasswordHash | { alg: "scrypt"; N: number; r: number; p: number };

/**
 * Which bound a hash passes, in words that name the parameter and the bound, never the
 * hash or its values; undefined when it is within every bound. Shapes are checked before.
 */
export function overBound(stored: BoundedHash): string | undefined {
  const b = HASH_BOUNDS;
  switch (stored.alg) {
    case "scrypt":
      if (128 * stored.N * stored.r > b.memoryBytes) return `needs more than ${b.memoryBytes / MIB} MiB (128 * N * r)`;
      if (stored.p > b.scryptLanes) return `has more than ${b.scryptLanes} scrypt lanes (p)`;
      if (stored.N * stored.r * stored.p > b.scryptWork) return "costs more than N * r * p = 2^22";
      return undefined;
    case "bcrypt": {
      const cost = bcryptCost(stored.hash);
      return cost >= 4 && cost <= b.bcryptCost ? undefined : `has a bcrypt cost outside 4 to ${b.bcryptCost}`;
    }
    case "argon2id": {
      const params = argon2Params(stored.hash);
      if (!params) return "is not an argon2id PHC string";
      const { m, t, p, saltBytes, tagBytes } = params;
      if (m * 1024 > b.memoryBytes) return `needs more than ${b.memoryBytes / MIB} MiB (m)`;
      if (t < 1 || t > b.argon2Passes) return `has a time cost (t) outside 1 to ${b.argon2Passes}`;
      if (p < 1 || p > b.argon2Lanes) return `has lanes (p) outside 1 to ${b.argon2Lanes}`;
      if (m < 8 * p) return "has less memory (m) than 8 KiB per lane (p)";
      if (t * m * 1024 > b.argon2Work) return `costs more than t * m = ${b.argon2Work / MIB / 1024} GiB`;
      if (saltBytes < 8 || saltBytes > 64 || tagBytes < 4 || tagBytes > 128)
        return "has a salt (8 to 64 bytes) or a hash (4 to 128 bytes) out of bounds";
      return undefined;
    }
    case "pbkdf2-sha256": {
      const blocks = Math.ceil(Buffer.from(stored.hash, "base64").length / 32);
      return stored.iterations * blocks > b.pbkdf2Work
        ? `costs more than ${b.pbkdf2Work} rounds (iterations * 32-byte blocks of the hash)`
        : undefined;
    }
  }
}
