// One verification at a time, off the main thread (lib/crypto/foreign-hash-pool.ts): bcryptjs
// and hash-wasm's argon2 compute on the thread that calls them. Plain JavaScript, so it
// loads the same under tsx, vitest and as its own bundle beside a Lambda's index.mjs.
import { parentPort } from "node:worker_threads";
import bcrypt from "bcryptjs";
import argon2 from "hash-wasm/dist/argon2.umd.min.js";

async function verify({ alg, password, hash }) {
  if (alg === "bcrypt") return bcrypt.compareSync(password, hash);
  if (alg === "argon2id") return argon2.argon2Verify({ password, hash });
  return false;
}

parentPort.on("message", async (job) => {
  // A malformed hash matches nothing; its text never leaves the worker in an error.
  const matches = await verify(job).catch(() => false);
  parentPort.postMessage({ id: job.id, matches: matches === true });
});
