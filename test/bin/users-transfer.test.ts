import { pbkdf2Sync, randomBytes, scryptSync } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Ajv } from "ajv";
import bcrypt from "bcryptjs";
import { argon2id } from "hash-wasm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { accountTransfer } from "../../lib/container";
import { dataKeys } from "../../lib/crypto/data-key";
import { totpSealing } from "../../lib/domain/accounts/export-line";
import { exportLineSchema } from "../../lib/domain/accounts/export-schema";
import { importAccounts } from "../../lib/domain/accounts/import";
import { hashPassword } from "../../lib/domain/credentials/password-hash";
import { keys } from "../../lib/store/keys";
import { createClient, FAST_SCRYPT, uniqueId } from "../support/fixtures";
import { passwordLogin } from "../support/login";
import { storedItem, storedItems } from "../support/stored";
import { svcAdmin } from "../support/svc-admin";
import { expectNothingStored, tableSnapshot } from "../support/table-snapshot";
import { wipeTable } from "../support/table-wipe";

// Thousands of accounts go through the real CLI twice; a busy machine must not fail them.
vi.setConfig({ testTimeout: 300_000, hookTimeout: 300_000 });

const workDir = mkdtempSync(join(tmpdir(), "users-transfer-"));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

const SEEDED = 2000;
/** Lines of the export imported again: each kind of item is on one seed line in 13 at least, so 200 hold every kind. */
const RERUN = 200;
const PASSWORD = "seeded password 1";
const TOTP_SECRET = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP";

const linesOf = (text: string) => text.split("\n").filter((line) => line !== "");

/** Every kind of item the export carries, spread over the accounts. */
function seedLine(i: number, prefix: string, hashes: Record<string, unknown>): Record<string, unknown> {
  const kinds = ["scrypt", "bcrypt", "pbkdf2", "argon2id", "scrypt-standard"];
  const created = 1_790_000_000 + i;
  return {
    sub: `${prefix}-${i}`,
    family_name: `Family${i}`,
    given_name: `Given${i}`,
    ...(i % 2 === 0 && { middle_name: `Middle${i}` }),
    locked: i % 7 === 0,
    email: { value: `${prefix}-${i}@example.com`, verified: i % 3 === 0 },
    ...(i % 2 === 1 && { phone_number: { value: `+7900${String(i).padStart(7, "0")}`, verified: i % 5 === 0 } }),
    created_at: created,
    updated_at: created + 10,
    ...(i % 3 === 1 && { last_login_at: created + 20, state: { name: "active", checkedOn: created + 20 } }),
    ...(i % 5 === 0 && { required_factor: 2 }),
    ...(i % 11 === 0 && { need_password_change: true }),
    ...(i % 13 === 0 && { methods_locked: ["password"] }),
    password_hash: hashes[kinds[i % kinds.length]],
    password_changed_at: created + 5,
    ...(i % 9 === 0 && { password_history: [hashes.scrypt] }),
    groups: i % 4 === 0 ? [{ profile: "staff", id: `g${i % 5}`, added_at: created }] : [],
    rights: [
      { object: "its|billing", right: "read", tags: ["a", "b"] },
      ...(i > 0 ? [{ object: `${prefix}-${i - 1}`, right: "manage", tags: [] }] : []),
    ],
    totps: i % 4 === 1 ? [{ id: `totp${i}`, name: "phone", digits: 6, secret: TOTP_SECRET, last_step: 100 }] : [],
    passkeys:
      i % 6 === 0
        ? [
            {
              id: `cred${i}`,
              public_key: "pQECAyYgASFYIA",
              counter: 3,
              transports: ["internal"],
              backed_up: true,
              device_type: "multiDevice",
              name: "laptop",
              created_at: created,
            },
          ]
        : [],
  };
}

async function foreignHashes(password: string) {
  const salt = randomBytes(16);
  return {
    scrypt: await hashPassword(password, FAST_SCRYPT),
    bcrypt: bcrypt.hashSync(password, 4),
    pbkdf2: `pbkdf2_sha256$1000$djangosalt$${pbkdf2Sync(password, "djangosalt", 1000, 32, "sha256").toString("base64")}`,
    argon2id: await argon2id({
      password,
      salt: randomBytes(16),
      parallelism: 1,
      iterations: 2,
      memorySize: 1024,
      hashLength: 32,
      outputType: "encoded",
    }),
    "scrypt-standard": {
      alg: "scrypt",
      N: 1024,
      r: 8,
      p: 1,
      salt: salt.toString("base64"),
      hash: scryptSync(password, salt, 32, { N: 1024, r: 8, p: 1 }).toString("base64"),
    },
  };
}

describe("export, wipe, import", () => {
  let hashes: Record<string, unknown>;
  let first: string;
  let firstRun: { stdout: string; stderr: string };

  beforeAll(async () => {
    hashes = await foreignHashes(PASSWORD);
    const lines = Array.from({ length: SEEDED }, (_, i) => JSON.stringify(seedLine(i, "seed", hashes)));
    const summary = await importAccounts(lines, {
      accounts: accountTransfer(),
      sealing: totpSealing(await dataKeys().key("totp-secrets")),
      concurrency: 16,
    });
    expect(summary.errors).toEqual([]);
    expect(summary.imported).toBe(SEEDED);
    const out = join(workDir, "first.jsonl");
    const run = await svcAdmin("users", "export", "--out", out, "--with-factors");
    expect(run.code).toBe(0);
    first = readFileSync(out, "utf8");
    firstRun = run;
  });

  it("when every account is exported, each line validates against the published JSON Schema", () => {
    const published = JSON.parse(readFileSync("docs/schemas/user-export.schema.json", "utf8"));
    expect(published).toEqual(JSON.parse(JSON.stringify(exportLineSchema)));
    const validate = new Ajv({ allErrors: true }).compile(published);
    const lines = linesOf(first);
    expect(lines).toHaveLength(SEEDED);
    for (const line of lines) expect(validate(JSON.parse(line)), JSON.stringify(validate.errors)).toBe(true);
    expect(firstRun.stderr).toContain(`exported ${SEEDED} accounts`);
  });

  it("when an account is exported, its line holds contacts, hash, groups, rights and factors", () => {
    const line = linesOf(first)
      .map((text) => JSON.parse(text))
      .find((account) => account.sub === "seed-1");
    expect(line).toMatchObject({
      email: { value: "seed-1@example.com", verified: false },
      phone_number: { value: "79000000001", verified: false },
      password_hash: { alg: "bcrypt", hash: hashes.bcrypt },
      rights: [
        { object: "its|billing", right: "read", tags: ["a", "b"] },
        { object: "seed-0", right: "manage", tags: [] },
      ],
      totps: [{ id: "totp1", digits: 6, secret: TOTP_SECRET, last_step: 100 }],
      state: { name: "active" },
    });
  });

  it("when the table is wiped and the export imported, a second export is byte for byte the first", async () => {
    const path = join(workDir, "first.jsonl");
    expect(await wipeTable()).toBeGreaterThan(SEEDED);
    const imported = await svcAdmin("users", "import", path, "--concurrency", "16");
    expect(imported.stderr.split("\n").filter((l) => l.startsWith("line "))).toEqual([]);
    expect(imported.stdout).toContain(`imported ${SEEDED}, unchanged 0, failed 0`);
    const second = join(workDir, "second.jsonl");
    expect((await svcAdmin("users", "export", "--out", second, "--with-factors")).code).toBe(0);
    // Segments of a parallel Scan interleave: the order of lines is the table's, not fixed.
    const sorted = (text: string) => `${linesOf(text).sort().join("\n")}\n`;
    expect(sorted(readFileSync(second, "utf8"))).toBe(sorted(first));

    // A rerun writes nothing and reports every line unchanged: the export's first RERUN lines,
    // so the suite does not pay the whole file a third time.
    const rerun = join(workDir, "rerun.jsonl");
    writeFileSync(rerun, `${linesOf(first).slice(0, RERUN).join("\n")}\n`);
    const before = await tableSnapshot();
    const again = await svcAdmin("users", "import", rerun, "--concurrency", "16");
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`imported 0, unchanged ${RERUN}, failed 0`);
    expectNothingStored(before, await tableSnapshot(), "rerun");

    // No report of either run shows a hash or a secret.
    for (const run of [firstRun, imported, again]) {
      const report = run.stdout + run.stderr;
      for (const secret of [hashes.bcrypt, hashes.argon2id, TOTP_SECRET, (hashes.scrypt as { hash: string }).hash]) {
        expect(report).not.toContain(secret as string);
      }
    }
  });
});

describe.concurrent("foreign password hashes at sign-in", () => {
  async function importOne(passwordHash: unknown): Promise<string> {
    const sub = uniqueId("foreign-");
    const summary = await importAccounts([JSON.stringify({ sub, password_hash: passwordHash })], {
      accounts: accountTransfer(),
    });
    expect(summary.errors).toEqual([]);
    return sub;
  }

  it.each(["bcrypt", "argon2id", "pbkdf2", "scrypt-standard"])(
    "when a %s account signs in with its password, the stored hash becomes our scrypt",
    async (kind) => {
      const password = `pässword ${kind}`;
      const sub = await importOne((await foreignHashes(password))[kind as "bcrypt"]);
      const client = await createClient(["svc_api_user"]);
      const answer = await passwordLogin(client, { username: sub, password, scope: "svc_api_user" });
      expect(answer.statusCode).toBe(200);
      const stored = await storedItem(keys.passwordCredential(sub));
      expect(stored).toMatchObject({ alg: "scrypt", N: 2 ** 17, r: 8, p: 1, keyLength: 32 });
      expect(stored).not.toHaveProperty("iterations");
      expect(stored).not.toHaveProperty("unnormalized");
      // And the new hash is the same password's.
      const again = await passwordLogin(client, { username: sub, password, scope: "svc_api_user" });
      expect(again.statusCode).toBe(200);
    },
  );

  it("when a wrong password is tried against a bcrypt hash, the login fails, counts and keeps the hash", async () => {
    const hash = bcrypt.hashSync("right password", 4);
    const sub = await importOne(hash);
    const client = await createClient(["svc_api_user"]);
    const answer = await passwordLogin(client, { username: sub, password: "wrong password", scope: "svc_api_user" });
    expect(answer.statusCode).toBe(400);
    expect(answer.json).toMatchObject({ error: "invalid_grant" });
    expect(await storedItem(keys.loginFailures(sub))).toMatchObject({ count: 1 });
    expect(await storedItem(keys.passwordCredential(sub))).toMatchObject({ alg: "bcrypt", hash });
  });
});

describe.concurrent("import reports", () => {
  it("when lines repeat a sub, an e-mail or a phone, each is reported by line and none is half written", async () => {
    const [a, b, c, d] = [uniqueId("dup-"), uniqueId("dup-"), uniqueId("dup-"), uniqueId("dup-")];
    const bcryptHash = bcrypt.hashSync("some password", 4);
    const lines = [
      { sub: a, email: `${a}@example.com`, phone_number: "+7 901 555-00-11", password_hash: bcryptHash },
      { sub: a, given_name: "Other", password_hash: bcryptHash },
      {
        sub: b,
        email: `${a.toUpperCase()}@EXAMPLE.com`,
        password: "a plain password",
        groups: [{ profile: "p", id: "g", added_at: 1 }],
      },
      { sub: c, phone_number: "79015550011", rights: [{ object: "its|billing", right: "read", tags: [] }] },
      { sub: d, email: `${d}@example.com` },
    ];
    const path = join(workDir, `${a}.jsonl`);
    writeFileSync(path, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
    const run = await svcAdmin("users", "import", path);
    expect(run.code).toBe(1);
    expect(run.stderr.split("\n").filter((line) => line.startsWith("line "))).toEqual([
      "line 2: sub already used by an account that differs from this line",
      "line 3: email already used by another account",
      "line 4: phone_number already used by another account",
    ]);
    expect(run.stdout).toContain("imported 2, unchanged 0, failed 3");
    expect(run.stdout + run.stderr).not.toContain(bcryptHash);
    expect(run.stdout + run.stderr).not.toContain("a plain password");
    for (const sub of [b, c]) {
      expect(await storedItem(keys.userProfile(sub))).toBeUndefined();
      for (const prefix of ["CRED#", "MEMBER_OF#", "RIGHT#"]) expect(await storedItems(sub, prefix)).toEqual([]);
    }
    expect(await storedItem(keys.groupMember("p", "g", b))).toBeUndefined();
    expect(await storedItem(keys.userProfile(a))).not.toHaveProperty("given_name");
  });

  it("when a Cognito user CSV is imported, accounts come without a password and keep verified flags", async () => {
    const [a, b] = [uniqueId("cog-"), uniqueId("cog-")];
    const path = join(workDir, `${a}.csv`);
    writeFileSync(
      path,
      [
        "cognito:username,given_name,family_name,email,email_verified,phone_number,phone_number_verified,enabled",
        `${a},Anna,"Smith, Jr",${a}@example.com,true,+79017770001,false,true`,
        `${b},Boris,,${b}@example.com,false,,,false`,
      ].join("\n"),
    );
    const run = await svcAdmin("users", "import", path, "--format", "cognito-csv");
    expect(run.stdout).toContain("imported 2, unchanged 0, failed 0");
    expect(await storedItem(keys.userProfile(a))).toMatchObject({
      family_name: "Smith, Jr",
      email: { value: `${a}@example.com`, verified: true },
      phone_number: { verified: false },
      locked: false,
    });
    expect(await storedItem(keys.userProfile(b))).toMatchObject({ locked: true });
    expect(await storedItem(keys.passwordCredential(a))).toBeUndefined();
    const again = await svcAdmin("users", "import", path, "--format", "cognito-csv");
    expect(again.stdout).toContain("imported 0, unchanged 2, failed 0");
  });

  it("when an Auth0 export is imported, its bcrypt users sign in with their passwords", async () => {
    const id = uniqueId("a0");
    const path = join(workDir, `${id}.json`);
    const users = [
      {
        user_id: `auth0|${id}`,
        email: `${id}@example.com`,
        email_verified: true,
        custom_password_hash: { algorithm: "bcrypt", hash: { value: bcrypt.hashSync("auth0 password", 4) } },
      },
    ];
    writeFileSync(path, JSON.stringify(users, null, 2));
    const run = await svcAdmin("users", "import", path, "--format", "auth0");
    expect(run.stdout).toContain("imported 1, unchanged 0, failed 0");
    const client = await createClient(["svc_api_user"]);
    const answer = await passwordLogin(client, {
      username: `${id}@example.com`,
      password: "auth0 password",
      scope: "svc_api_user",
    });
    expect(answer.statusCode).toBe(200);
    expect(await storedItem(keys.passwordCredential(id))).toMatchObject({ alg: "scrypt" });
  });
});
