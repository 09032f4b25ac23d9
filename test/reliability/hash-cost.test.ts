import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { UpdateCommand } from "@aws-sdk/lib-dynamodb";
import bcrypt from "bcryptjs";
import { argon2id } from "hash-wasm";
import { afterAll, describe, expect, it, vi } from "vitest";
import { config } from "../../lib/config";
import { accountTransfer, requestChecks, services } from "../../lib/container";
import { documentClient } from "../../lib/document-client";
import { importAccounts } from "../../lib/domain/accounts/import";
import { DEFAULT_SCRYPT, hashPassword } from "../../lib/domain/credentials/password-hash";
import { keys } from "../../lib/store/keys";
import { createClient, invoke, sampleEvent, uniqueId } from "../support/fixtures";
import { useLogLevel } from "../support/log-lines";
import { passwordLogin } from "../support/login";
import { storedItem, storedItems } from "../support/stored";
import { svcAdmin } from "../support/svc-admin";
import { startTally } from "../support/tally";

/**
 * Issue 43 item 2, as the attack run tried it: imported hashes whose cost buys a denial of
 * service (bcrypt `$2b$31$`, argon2id with t=300 or 64 lanes, PBKDF2 and scrypt far past
 * their usual work), refused at import and again at sign-in; a verification at the bounds
 * that must not hold other requests; and the rehash that makes a legacy cost paid once.
 */

const tally = startTally(import.meta.filename);
vi.setConfig({ testTimeout: 120_000 });

const workDir = mkdtempSync(join(tmpdir(), "hash-cost-"));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

const b64 = (bytes: number) => randomBytes(bytes).toString("base64").replace(/=+$/, "");
const phc = (m: number, t: number, p: number) => `$argon2id$v=19$m=${m},t=${t},p=${p}$${b64(16)}$${b64(32)}`;
const bcrypt31 = () => bcrypt.hashSync("whatever", 4).replace("$04$", "$31$");

async function argon2(password: string, t: number, mKib: number, p: number): Promise<string> {
  const salt = randomBytes(16);
  return argon2id({
    password,
    salt,
    iterations: t,
    memorySize: mKib,
    parallelism: p,
    hashLength: 32,
    outputType: "encoded",
  });
}

async function importOne(passwordHash: unknown): Promise<string> {
  const sub = uniqueId("hash-cost-");
  const summary = await importAccounts([JSON.stringify({ sub, password_hash: passwordHash })], {
    accounts: accountTransfer(),
  });
  expect(summary.errors).toEqual([]);
  return sub;
}

/** Replaces a stored credential's fields, as a record written around the import would. */
async function storeAround(sub: string, fields: Record<string, unknown>): Promise<void> {
  const names = Object.keys(fields);
  await documentClient().send(
    new UpdateCommand({
      TableName: config().tableName,
      Key: keys.passwordCredential(sub),
      UpdateExpression: `SET ${names.map((_, i) => `#f${i} = :v${i}`).join(", ")}`,
      ExpressionAttributeNames: Object.fromEntries(names.map((name, i) => [`#f${i}`, name])),
      ExpressionAttributeValues: Object.fromEntries(names.map((name, i) => [`:v${i}`, fields[name]])),
    }),
  );
}

async function signIn(client: { clientId: string; secret: string }, sub: string, password: string) {
  const answer = await passwordLogin(client, { username: sub, password, scope: "svc_api_user" });
  tally.answered(answer.statusCode);
  return answer;
}

describe("issue 43 item 2: imported hashes cannot buy unbounded CPU", () => {
  it("when a file carries hashes over a cost bound, svc-admin users import refuses each by line number and stores nothing for it", async () => {
    const subs = Array.from({ length: 11 }, () => uniqueId("hash-import-"));
    const scrypt = { alg: "scrypt", N: 2 ** 17, r: 8, p: 8, salt: b64(16), hash: randomBytes(32).toString("base64") };
    const hashes: unknown[] = [
      bcrypt31(),
      phc(8192, 300, 1),
      phc(65536, 1, 64),
      phc(1048576, 1, 1),
      phc(262144, 10, 1),
      { alg: "pbkdf2-sha256", iterations: 5_000_000, salt: b64(16), hash: randomBytes(64).toString("base64") },
      `pbkdf2_sha256$10000000$djangosalt$${randomBytes(32).toString("base64")}`,
      scrypt,
      { alg: "argon2id", hash: phc(8, 1, 8) },
      bcrypt.hashSync("fine", 4),
      bcrypt.hashSync("fine", 4),
    ];
    const lines = hashes.map((hash, i) => ({ sub: subs[i], password_hash: hash }));
    lines[9] = { ...lines[9], password_history: [{ alg: "bcrypt", hash: bcrypt31() }] } as never;
    const path = join(workDir, "over-bounds.jsonl");
    writeFileSync(path, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
    const run = await svcAdmin("users", "import", path);
    tally.badInput(10);
    // The issue's own line, in the Auth0 form that brought it.
    const auth0Sub = uniqueId("hash-auth0-");
    const auth0Path = join(workDir, "auth0.json");
    const auth0Hash = phc(8192, 300, 1);
    writeFileSync(
      auth0Path,
      `${JSON.stringify({ user_id: `auth0|${auth0Sub}`, custom_password_hash: { algorithm: "argon2", hash: { value: auth0Hash } } })}\n`,
    );
    const auth0 = await svcAdmin("users", "import", auth0Path, "--format", "auth0");
    tally.badInput();
    await tally.invariant(async () => {
      expect(run.code).toBe(1);
      expect(run.stderr.split("\n").filter((line) => line.startsWith("line "))).toEqual([
        "line 1: password_hash has a bcrypt cost outside 4 to 14",
        "line 2: password_hash has a time cost (t) outside 1 to 10",
        "line 3: password_hash has lanes (p) outside 1 to 8",
        "line 4: password_hash needs more than 256 MiB (m)",
        "line 5: password_hash costs more than t * m = 1 GiB",
        "line 6: password_hash costs more than 5000000 rounds (iterations * 32-byte blocks of the hash)",
        "line 7: password_hash.iterations must be 1 to 5000000",
        "line 8: password_hash costs more than N * r * p = 2^22",
        "line 9: password_hash has less memory (m) than 8 KiB per lane (p)",
        "line 10: password_history.0 has a bcrypt cost outside 4 to 14",
      ]);
      expect(run.stdout).toContain("imported 1, unchanged 0, failed 10");
      expect(auth0.code).toBe(1);
      expect(auth0.stderr).toContain("line 1: password_hash has a time cost (t) outside 1 to 10");
      for (const [i, hash] of hashes.entries()) {
        const text = typeof hash === "string" ? hash : (hash as { hash: string }).hash;
        expect(run.stdout + run.stderr).not.toContain(text);
        if (i < 10) {
          expect(await storedItem(keys.userProfile(subs[i]))).toBeUndefined();
          expect(await storedItems(subs[i], "CRED#")).toEqual([]);
        }
      }
      expect(await storedItem(keys.passwordCredential(subs[10]))).toMatchObject({ alg: "bcrypt" });
      expect(auth0.stdout + auth0.stderr).not.toContain(auth0Hash);
      expect(await storedItems(auth0Sub, "CRED#")).toEqual([]);
    });
  });
});

describe("issue 43 item 2: a stored hash over the bounds is a wrong password, never computed", () => {
  useLogLevel("warn");

  it("when a sign-in meets bcrypt $31$, PBKDF2 at a billion rounds or argon2id t=300, it answers invalid_grant at once and logs no hash", async () => {
    const stderr = vi.spyOn(process.stderr, "write");
    const client = await createClient(["svc_api_user"]);
    const bcryptSub = await importOne(bcrypt.hashSync("right", 4));
    const overBcrypt = bcrypt31();
    await storeAround(bcryptSub, { hash: overBcrypt });
    const pbkdf2Sub = await importOne({ alg: "pbkdf2-sha256", iterations: 1000, salt: b64(16), hash: b64(32) });
    await storeAround(pbkdf2Sub, { iterations: 1_000_000_000 });
    const argonSub = await importOne(await argon2("right", 1, 64, 1));
    const overArgon = phc(8192, 300, 1);
    await storeAround(argonSub, { hash: overArgon });
    // The same argon2id at t=10, within the bounds, for the time a computed check takes.
    const boundSub = await importOne(await argon2("right", 10, 8192, 1));

    const timed = async (sub: string) => {
      const start = performance.now();
      const answer = await signIn(client, sub, "right");
      return { answer, ms: performance.now() - start };
    };
    // Days of CPU for bcrypt $31$ and minutes for PBKDF2: these end only if never computed.
    const refused = [await timed(bcryptSub), await timed(pbkdf2Sub), await timed(argonSub)];
    const computed = await timed(boundSub);
    tally.badInput(3);
    await tally.invariant(async () => {
      // Even the right password: the hash is not computed.
      for (const { answer } of refused) {
        expect(answer.statusCode).toBe(400);
        expect(answer.json).toMatchObject({ error: "invalid_grant" });
      }
      expect(computed.answer.statusCode).toBe(200);
      // argon2id at t=300 would take 30 times the t=10 check; refused, it costs less than that one.
      expect(refused[2].ms).toBeLessThan(computed.ms);
      for (const sub of [bcryptSub, pbkdf2Sub, argonSub]) {
        expect(await storedItem(keys.loginFailures(sub))).toMatchObject({ count: 1 });
      }
      expect(await storedItem(keys.passwordCredential(bcryptSub))).toMatchObject({ alg: "bcrypt", hash: overBcrypt });
      expect(await storedItem(keys.passwordCredential(argonSub))).toMatchObject({ hash: overArgon });
      const written = stderr.mock.calls.map(([text]) => String(text));
      const reports = written
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((line) => line.message === "stored password hash over the cost bounds, not verified");
      expect(reports.map((line) => [line.alg, line.sub])).toEqual([
        ["bcrypt", bcryptSub],
        ["pbkdf2-sha256", pbkdf2Sub],
        ["argon2id", argonSub],
      ]);
      expect(reports[0].bound).toBe("has a bcrypt cost outside 4 to 14");
      for (const line of written) {
        expect(line).not.toContain(overBcrypt.slice(7));
        expect(line).not.toContain(overArgon.split("$")[4]);
      }
    });
  });
});

describe("issue 43 item 2: a verification at the bounds holds no other request", () => {
  it("when argon2id at t * m = 1 GiB with 8 lanes is being checked, a JWKS request sent meanwhile answers long before it ends", async () => {
    const client = await createClient(["svc_api_user"]);
    const sub = await importOne(await argon2("right", 4, 262144, 8));
    const jwks = await sampleEvent("events/token/jwks.json");
    // Warm: the key ring's first read is not what is measured.
    expect((await invoke("token", jwks)).statusCode).toBe(200);

    const login = signIn(client, sub, "wrong").then((answer) => ({ answer, endedAt: performance.now() }));
    // The attempt is taken in a write just before the hash is computed: once it is stored, the check runs.
    while (!(await storedItem(keys.loginFailures(sub)))) await sleep(10);
    const checking = performance.now();
    await sleep(100);
    // Measured from when it was meant to be sent: a held event loop delays the send itself.
    const meantAt = checking + 100;
    const keysAnswer = await invoke("token", jwks);
    const keysAt = performance.now();
    tally.answered(keysAnswer.statusCode);
    const { answer, endedAt } = await login;
    const verification = endedAt - checking;
    await tally.invariant(async () => {
      expect(answer.statusCode).toBe(400);
      expect(keysAnswer.statusCode).toBe(200);
      expect((keysAnswer.json.keys as unknown[]).length).toBeGreaterThan(0);
      expect(keysAt).toBeLessThan(endedAt);
      expect(keysAt - meantAt, `JWKS waited ${keysAt - meantAt} ms of a ${verification} ms check`).toBeLessThan(
        verification / 4,
      );
      expect(await storedItem(keys.passwordCredential(sub))).toMatchObject({ alg: "argon2id" });
    });
  });
});

describe("issue 43 item 2: a legacy cost is paid once", () => {
  it("when the right password signs in against a foreign hash, it becomes our scrypt, only if still the hash that was checked", async () => {
    const client = await createClient(["svc_api_user"]);
    const hash = await argon2("legacy password", 10, 8192, 2);
    const sub = await importOne(hash);
    const first = await signIn(client, sub, "legacy password");
    const stored = await storedItem(keys.passwordCredential(sub));
    const again = await signIn(client, sub, "legacy password");

    // The write is conditional: a rehash made against a hash since replaced changes nothing.
    const otherHash = await argon2("other password", 1, 64, 1);
    const otherSub = await importOne(otherHash);
    const { logins } = services();
    const changed = await hashPassword("changed meanwhile", { ...DEFAULT_SCRYPT, N: 2 ** 10 });
    await storeAround(otherSub, { ...changed });
    const late = await logins.commit([
      logins.rehashItem(otherSub, await hashPassword("other password"), { alg: "argon2id", hash: otherHash }),
    ]);
    await tally.invariant(async () => {
      expect(first.statusCode).toBe(200);
      expect(stored).toMatchObject({ alg: "scrypt", N: 2 ** 17, r: 8, p: 1, keyLength: 32 });
      expect(JSON.stringify(stored)).not.toContain("argon2");
      expect(again.statusCode).toBe(200);
      expect(late).toBe(false);
      expect(await storedItem(keys.passwordCredential(otherSub))).toMatchObject({ hash: changed.hash, N: 2 ** 10 });
    });
  });
});

describe("issue 43 item 2: a legacy cost is paid once over HTTP Basic too", () => {
  it("when the right password passes an HTTP Basic user check against a foreign hash, it becomes our scrypt", async () => {
    const sub = await importOne(await argon2("basic legacy", 2, 8192, 1));
    const checks = requestChecks();
    const account = await checks.userByPassword(sub, "basic legacy", "198.51.100.7", Math.floor(Date.now() / 1000));
    tally.answered(200);
    await tally.invariant(async () => {
      expect(account.sub).toBe(sub);
      expect(await storedItem(keys.passwordCredential(sub))).toMatchObject({ alg: "scrypt", N: 2 ** 17 });
      // The attempt was given back: no failure is left counted.
      expect(await storedItem(keys.loginFailures(sub))).toBeUndefined();
    });
  });
});
