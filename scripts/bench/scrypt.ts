import { scrypt as nodeScrypt, randomBytes } from "node:crypto";
import { promisify } from "node:util";
import scryptJs from "scrypt-js";
import { DEFAULT_SCRYPT } from "../../lib/domain/credentials/password-hash";
import { median } from "./cold-start";

const RUNS = 3;
const { N, r, p, keyLength } = DEFAULT_SCRYPT;
const PASSWORD = Buffer.from("Bench-Password-2026-correct-horse");
const native = promisify(nodeScrypt) as (pw: Buffer, salt: Buffer, len: number, opts: object) => Promise<Buffer>;

async function medianMs(hash: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let run = 0; run < RUNS; run += 1) {
    const started = performance.now();
    await hash();
    times.push(performance.now() - started);
  }
  return median(times);
}

function nodeHash(): Promise<Buffer> {
  return native(PASSWORD, randomBytes(16), keyLength, { N, r, p, maxmem: 256 * N * r });
}

/** One production-parameter scrypt hash through node:crypto on an idle process, median of 3. */
export function oneHashMs(): Promise<number> {
  return medianMs(nodeHash);
}

/** The same password hashed by node:crypto (libuv pool, native) and by scrypt-js (pure JS). */
export async function compareScrypt(): Promise<string[][]> {
  const nodeMs = await medianMs(nodeHash);
  const jsMs = await medianMs(() => scryptJs.scrypt(PASSWORD, randomBytes(16), N, r, p, keyLength));
  return [
    ["scrypt N=2^17 r=8 p=1, one hash", "ms (median of 3)", "x node:crypto"],
    ["node:crypto scrypt", nodeMs.toFixed(0), "1.00"],
    ["scrypt-js", jsMs.toFixed(0), (jsMs / nodeMs).toFixed(2)],
  ];
}
