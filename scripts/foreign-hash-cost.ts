import { pbkdf2Sync, randomBytes, scryptSync } from "node:crypto";
import { monitorEventLoopDelay } from "node:perf_hooks";
import bcrypt from "bcryptjs";
import { argon2id } from "hash-wasm";
import { HASH_BOUNDS, overBound } from "../lib/domain/credentials/hash-bounds";
import {
  DEFAULT_SCRYPT,
  hashPassword,
  type StoredPasswordHash,
  verifyPassword,
} from "../lib/domain/credentials/password-hash";

/**
 * What one wrong-password verification costs at each bound of hash-bounds.ts, through the
 * real path (the worker pool for bcrypt and argon2id), and how long the event loop was held
 * meanwhile (docs/decisions/foreign-hash-bounds.md). `npx tsx scripts/foreign-hash-cost.ts`
 */

const RUNS = 3;
const password = "the right password";

async function argon2(t: number, mKib: number, p: number): Promise<string> {
  const options = { password, salt: randomBytes(16), hashLength: 32, outputType: "encoded" } as const;
  return argon2id({ ...options, iterations: t, memorySize: mKib, parallelism: p });
}

function scrypt(N: number, r: number, p: number): StoredPasswordHash {
  const salt = randomBytes(16);
  const maxmem = 256 * N * r + 1024 * 1024;
  const hash = scryptSync(password, salt, 32, { N, r, p, maxmem }).toString("base64");
  return { alg: "scrypt", N, r, p, keyLength: 32, salt: salt.toString("base64"), hash };
}

const cases: Array<[string, () => Promise<StoredPasswordHash>]> = [
  ["ours: scrypt N=2^17 r=8 p=1", () => hashPassword(password, DEFAULT_SCRYPT)],
  [
    `bcrypt cost ${HASH_BOUNDS.bcryptCost}`,
    async () => ({ alg: "bcrypt", hash: bcrypt.hashSync(password, HASH_BOUNDS.bcryptCost) }),
  ],
  ["argon2id t=4 m=256 MiB p=8", async () => ({ alg: "argon2id", hash: await argon2(4, 262144, 8) })],
  ["argon2id t=10 m=100 MiB p=8", async () => ({ alg: "argon2id", hash: await argon2(10, 102400, 8) })],
  [
    `pbkdf2-sha256 ${HASH_BOUNDS.pbkdf2Work} iterations, 32 bytes`,
    async () => {
      const salt = randomBytes(16);
      const key = pbkdf2Sync(password, salt, HASH_BOUNDS.pbkdf2Work, 32, "sha256");
      const base64 = (b: Buffer) => b.toString("base64");
      return { alg: "pbkdf2-sha256", iterations: HASH_BOUNDS.pbkdf2Work, salt: base64(salt), hash: base64(key) };
    },
  ],
  ["scrypt N=2^18 r=8 p=2 (standard form)", async () => ({ ...scrypt(2 ** 18, 8, 2), unnormalized: true })],
];

const rows: string[][] = [
  ["hash", "one wrong-password verification, ms (median of 3)", "longest event-loop delay, ms"],
];
for (const [name, make] of cases) {
  const stored = await make();
  if (overBound(stored)) throw new Error(`${name} is over its bound: ${overBound(stored)}`);
  const times: number[] = [];
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  for (let run = 0; run < RUNS; run++) {
    const start = performance.now();
    if (await verifyPassword("a wrong password", stored)) throw new Error(`${name} matched a wrong password`);
    times.push(performance.now() - start);
  }
  delay.disable();
  const median = times.sort((a, b) => a - b)[Math.floor(RUNS / 2)];
  rows.push([name, median.toFixed(0), (delay.max / 1e6).toFixed(0)]);
}
for (const row of rows) console.log(`| ${row.join(" | ")} |`);
