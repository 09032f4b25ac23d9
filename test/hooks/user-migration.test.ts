import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import bcrypt from "bcryptjs";
import { decodeJwt } from "jose";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { passwordResetDeps, services } from "../../lib/container";
import { verifyPassword } from "../../lib/domain/credentials/password-hash";
import { loginSnapshot } from "../../lib/domain/login/verify-user-password";
import { requestPasswordReset } from "../../lib/domain/passwords/reset-password";
import { keys } from "../../lib/store/keys";
import { createClient, uniqueId } from "../support/fixtures";
import { forgetHookCalls, hookCalls, scriptHook, sleep, useScriptedHooks } from "../support/hooks";
import { passwordLogin } from "../support/login";
import { useSettings } from "../support/oauth-provider";
import { outbox } from "../support/outbox";
import { storedItem } from "../support/stored";
import { expectNothingStored, tableSnapshot } from "../support/table-snapshot";

/**
 * userMigration (docs/hooks.md) with the example hook examples/hooks/migrate-from-csv.mjs over a
 * CSV of bcrypt hashes, behind a module that counts its calls; failures with the scripted module.
 */

const SCOPE = "svc_api_user";
const dir = mkdtempSync(join(tmpdir(), "migration-"));
const csv = join(dir, "legacy.csv");
const counting = join(dir, "counting-migration.mjs");
const example = pathToFileURL(resolve("examples/hooks/migrate-from-csv.mjs")).href;
const legacy = {
  ada: { email: `${uniqueId("ada")}@legacy.example`, password: "analytical engine 1843" },
  race: { email: `${uniqueId("race")}@legacy.example`, password: "two browsers at once" },
  reset: { email: `${uniqueId("reset")}@legacy.example`, password: "forgotten long ago" },
};
const migrationCalls = () => (globalThis as { migrationCalls?: number }).migrationCalls ?? 0;
let client: Awaited<ReturnType<typeof createClient>>;

beforeAll(async () => {
  const rows = Object.values(legacy).map((u) => `${u.email},${bcrypt.hashSync(u.password, 4)},Ada,Lovelace`);
  writeFileSync(csv, ["email,bcrypt_hash,given_name,family_name", ...rows].join("\n"));
  process.env.MIGRATION_CSV = csv;
  writeFileSync(
    counting,
    `import { handler as inner } from ${JSON.stringify(example)};
export async function handler(input) {
  globalThis.migrationCalls = (globalThis.migrationCalls ?? 0) + 1;
  return inner(input);
}
`,
  );
  client = await createClient();
});

const login = (username: string, password: string) => passwordLogin(client, { username, password, scope: SCOPE });

describe("userMigration hook, the CSV example", () => {
  beforeEach(() => useSettings({ hooks: { userMigration: { target: counting, timeoutMs: 3000 } } }));

  it("when an old user signs in for the first time, the account is created with our scrypt hash and the next sign-in never asks the hook", async () => {
    const calls = migrationCalls();
    const first = await login(legacy.ada.email, legacy.ada.password);
    expect(first.statusCode).toBe(200);
    expect(migrationCalls()).toBe(calls + 1);
    const sub = decodeJwt(first.json.access_token as string).sub as string;
    expect(await services().accounts.get(sub)).toMatchObject({
      email: { value: legacy.ada.email, verified: true },
      given_name: "Ada",
      family_name: "Lovelace",
    });
    const credential = (await storedItem(keys.passwordCredential(sub))) as Record<string, unknown>;
    expect(credential).toMatchObject({ N: 2 ** 17, r: 8, p: 1 });
    expect(JSON.stringify(credential)).not.toContain("$2");
    expect(await verifyPassword(legacy.ada.password, credential as never)).toBe(true);

    const second = await login(legacy.ada.email, legacy.ada.password);
    expect(second.statusCode).toBe(200);
    expect(decodeJwt(second.json.access_token as string).sub).toBe(sub);
    expect(migrationCalls()).toBe(calls + 1);
  });

  it("when the old system refuses the password, nothing is created and the answer is the usual wrong password", async () => {
    const before = await tableSnapshot();
    const response = await login(legacy.race.email, "not the password");
    expect(response.statusCode).toBe(400);
    expect(response.json).toEqual({ error: "invalid_grant", error_description: "invalid username or password" });
    expectNothingStored(before, await tableSnapshot(), "refused migration");
  });

  it("when two first sign-ins race, one account is created and both sign in to it", async () => {
    const [a, b] = await Promise.all([
      login(legacy.race.email, legacy.race.password),
      login(legacy.race.email, legacy.race.password),
    ]);
    expect([a.statusCode, b.statusCode]).toEqual([200, 200]);
    expect(decodeJwt(a.json.access_token as string).sub).toBe(decodeJwt(b.json.access_token as string).sub);
  });

  it("when an old user forgets the password, the hook is asked without one, the account is created without one and the code goes out", async () => {
    const calls = migrationCalls();
    await requestPasswordReset(
      legacy.reset.email,
      { clientId: client.clientId, language: "en" },
      passwordResetDeps(),
      Math.floor(Date.now() / 1000),
    );
    expect(migrationCalls()).toBe(calls + 1);
    const [message] = outbox(legacy.reset.email);
    expect(message).toMatchObject({ channel: "email", lang: "en" });
    const snapshot = await loginSnapshot(services().logins, legacy.reset.email, [], Math.floor(Date.now() / 1000));
    expect(snapshot.account).toMatchObject({ email: { value: legacy.reset.email, verified: true } });
    expect(snapshot.credential).toBeUndefined();
  });
});

describe("userMigration hook failures", () => {
  beforeEach(() => {
    useScriptedHooks({ userMigration: 300 });
    forgetHookCalls();
  });

  it("when the hook answers unknown, the sign-in is the usual wrong password and the hook saw the password once", async () => {
    scriptHook("userMigration", () => ({ action: "unknown" }));
    const response = await login(`${uniqueId("nobody")}@example.com`, "some password here");
    expect(response.statusCode).toBe(400);
    expect(hookCalls("userMigration")).toHaveLength(1);
    expect(hookCalls("userMigration")[0]).toMatchObject({ trigger: "signIn", password: "some password here" });
  });

  it.each([
    ["times out", () => sleep(1000).then(() => ({ action: "unknown" }))],
    ["answers outside its contract", () => ({ action: "migrate", user: { email: "not an object" } })],
    ["vouches for attributes we refuse", () => ({ action: "migrate", user: { sub: "no spaces allowed" } })],
    ["throws", () => Promise.reject(new Error("old system down"))],
  ])("when the hook %s, the sign-in fails closed with 503 and nothing is created", async (_what, script) => {
    scriptHook("userMigration", script);
    const before = await tableSnapshot();
    const response = await login(`${uniqueId("down")}@example.com`, "some password here");
    expect(response.statusCode).toBe(503);
    expect(response.json).toMatchObject({ error: "temporarily_unavailable" });
    expectNothingStored(before, await tableSnapshot(), "failed migration");
  });
});
