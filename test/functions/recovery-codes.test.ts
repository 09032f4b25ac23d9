import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { services } from "../../lib/container";
import { keys } from "../../lib/store/keys";
import { createClient, seedAccount, systemBearer, userToken } from "../support/fixtures";
import { passwordLogin } from "../support/login";
import { request } from "../support/requests";
import { storedItem, storedItems } from "../support/stored";

const PASSWORD = "correct horse battery staple";

async function generate(sub: string, authorization?: string, headers?: Record<string, string | null>) {
  return request("security", "events/security/recovery-codes-generate.json", {
    params: { subjectId: sub },
    authorization: authorization ?? (await systemBearer(["svc_api_sys_usec_chg"])),
    ...(headers && { headers }),
  });
}

async function status(sub: string, authorization?: string) {
  return request("security", "events/security/recovery-codes-get.json", {
    params: { subjectId: sub },
    authorization: authorization ?? (await systemBearer(["svc_api_sys_usec"])),
  });
}

async function newCodes(sub: string): Promise<string[]> {
  const response = await generate(sub);
  expect(response.statusCode).toBe(200);
  return response.json.codes as string[];
}

const digest = (plain: string) => createHash("sha256").update(plain).digest("hex");

describe("recovery codes (interface §4.15a)", () => {
  it("when a set is generated, it answers ten readable codes once and stores only their SHA-256", async () => {
    const account = await seedAccount();
    const before = Math.floor(Date.now() / 1000);
    const response = await generate(account.sub);
    expect(response.statusCode).toBe(200);
    const { codes, createdAt } = response.json as { codes: string[]; createdAt: number };
    expect(codes).toHaveLength(10);
    for (const code of codes) expect(code).toMatch(/^[0-9a-hjkmnp-tv-z]{5}-[0-9a-hjkmnp-tv-z]{5}$/);
    expect(new Set(codes).size).toBe(10);
    expect(createdAt).toBeGreaterThanOrEqual(before);

    const stored = await storedItem(keys.recoveryCodes(account.sub));
    expect(stored).toMatchObject({ entity: "recovery-codes", schemaVersion: 1, createdAt });
    expect(Object.keys(stored?.codes as object).sort()).toEqual(codes.map((c) => digest(c.replace("-", ""))).sort());
    const raw = JSON.stringify(stored);
    for (const code of codes) {
      expect(raw).not.toContain(code);
      expect(raw).not.toContain(code.replace("-", ""));
    }
    expect((await status(account.sub)).json).toEqual({ remaining: 10, createdAt });
    const events = await services().events.list(account.sub, 0, Date.now() + 1000, 10);
    const generated = events.filter((e) => e.type === "recovery_codes_generate");
    expect(generated).toHaveLength(1);
    expect(JSON.stringify(generated)).not.toContain(codes[0].slice(0, 5));
  });

  it("when no set was generated, it answers remaining 0 without createdAt", async () => {
    const account = await seedAccount();
    const response = await status(account.sub);
    expect(response.statusCode).toBe(200);
    expect(response.json).toEqual({ remaining: 0 });
  });

  it("when the account does not exist, both routes answer 404 unknown_user and store nothing", async () => {
    for (const response of [await status("nobody-here"), await generate("nobody-here")]) {
      expect(response.statusCode).toBe(404);
      expect(response.json).toMatchObject({ type: "process_error", error: "unknown_user" });
    }
    expect(await storedItem(keys.recoveryCodes("nobody-here"))).toBeUndefined();
  });

  it("when the subject is malformed, it answers 400 in the v3 shape", async () => {
    const response = await status("bad subject with spaces and /slashes");
    expect(response.statusCode).toBe(400);
    expect(response.json).toMatchObject({ type: "input_error" });
  });

  it("when the token lacks the permission, it answers 401 insufficient_scope and stores nothing", async () => {
    const account = await seedAccount();
    const readOnly = await systemBearer(["svc_api_sys_usec"]);
    const response = await generate(account.sub, readOnly);
    expect(response.statusCode).toBe(401);
    expect(response.json).toMatchObject({ error: "bad_access_token", desc: "insufficient_scope" });
    expect(await storedItem(keys.recoveryCodes(account.sub))).toBeUndefined();
  });

  it("when a user generates codes, the IP and User-Agent headers are required, as for TOTP", async () => {
    const account = await seedAccount();
    const bearer = `Bearer ${await userToken(account.sub, ["svc_api_usec_chg", "svc_api_usec"])}`;
    const bare = await generate(account.sub, bearer, { "x-forwarded-for": null });
    expect(bare.statusCode).toBe(400);
    expect(await storedItem(keys.recoveryCodes(account.sub))).toBeUndefined();
    const ok = await generate(account.sub, bearer);
    expect(ok.statusCode).toBe(200);
    expect((await status(account.sub, bearer)).json).toMatchObject({ remaining: 10 });
  });
});

describe("recovery codes at sign-in (password grant recovery_code)", () => {
  async function secondFactorAccount() {
    const account = await seedAccount({ requiredFactor: 2 }, PASSWORD);
    const client = await createClient(["svc_api_user"]);
    const login = (form: Record<string, string>) =>
      passwordLogin(client, { scope: "svc_api_user", username: account.sub, password: PASSWORD, ...form });
    return { account, client, login };
  }

  it("when a recovery code is sent, it signs in once (amr pwd otp mfa); the same code is refused after", async () => {
    const { account, login } = await secondFactorAccount();
    const codes = await newCodes(account.sub);
    // Case and hyphens do not matter.
    const typed = codes[3].toUpperCase().replace("-", "");
    const ok = await login({ recovery_code: typed });
    expect(ok.statusCode).toBe(200);
    const claims = JSON.parse(Buffer.from((ok.json.id_token as string).split(".")[1], "base64url").toString());
    expect(claims.sub).toBe(account.sub);
    expect((await status(account.sub)).json).toMatchObject({ remaining: 9 });

    const again = await login({ recovery_code: codes[3] });
    expect(again.statusCode).toBe(400);
    expect(again.json).toEqual({ error: "invalid_grant", error_description: "the recovery_code is not valid" });

    const events = await services().events.list(account.sub, 0, Date.now() + 1000, 50);
    const used = events.filter((e) => e.type === "recovery_code_use");
    expect(used).toHaveLength(1);
    const login1 = events.find((e) => e.type === "login" && e.result === "ok");
    expect(login1?.prms).toMatchObject({ method: "password", factor: "recovery_code" });
    expect(JSON.stringify(events)).not.toContain(codes[3].slice(0, 5));
    const sessions = await storedItems(account.sub, "SESSION#");
    expect(sessions.map((s) => s.amr)).toEqual([["pwd", "otp", "mfa"]]);
  });

  it("when a wrong recovery code is sent, it counts as a failed login like a wrong otp", async () => {
    const { account, login } = await secondFactorAccount();
    await newCodes(account.sub);
    const wrong = await login({ recovery_code: "aaaaa-aaaaa" });
    expect(wrong.json).toEqual({ error: "invalid_grant", error_description: "the recovery_code is not valid" });
    expect((await storedItem(keys.loginFailures(account.sub)))?.count).toBe(1);
    expect((await status(account.sub)).json).toMatchObject({ remaining: 10 });
  });

  it("when one code is sent by two sign-ins at once, exactly one signs in", async () => {
    const { account, login } = await secondFactorAccount();
    const [code] = await newCodes(account.sub);
    const results = await Promise.all(Array.from({ length: 4 }, () => login({ recovery_code: code })));
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 400, 400, 400]);
    expect((await status(account.sub)).json).toMatchObject({ remaining: 9 });
  });

  it("when a set is generated again, the old codes are refused and the new ones work", async () => {
    const { account, login } = await secondFactorAccount();
    const old = await newCodes(account.sub);
    const fresh = await newCodes(account.sub);
    expect((await login({ recovery_code: old[0] })).json).toMatchObject({ error: "invalid_grant" });
    expect((await login({ recovery_code: fresh[0] })).statusCode).toBe(200);
    expect((await status(account.sub)).json).toMatchObject({ remaining: 9 });
  });

  it("when recovery codes are the only method, requiredFactor 2 is refused (has_not_sf_methods)", async () => {
    const account = await seedAccount();
    await newCodes(account.sub);
    const response = await request("security", "events/security/auth-change.json", {
      params: { subjectId: account.sub },
      body: { requiredFactor: 2 },
      authorization: await systemBearer(["svc_api_sys_usec_chg"]),
    });
    expect(response.statusCode).toBe(400);
    expect(response.json).toMatchObject({ error: "has_not_sf_methods" });
  });

  it("when the account has no second factor required, a recovery code is not spent", async () => {
    const account = await seedAccount({}, PASSWORD);
    const client = await createClient(["svc_api_user"]);
    const [code] = await newCodes(account.sub);
    const ok = await passwordLogin(client, {
      scope: "svc_api_user",
      username: account.sub,
      password: PASSWORD,
      recovery_code: code,
    });
    expect(ok.statusCode).toBe(200);
    expect((await status(account.sub)).json).toMatchObject({ remaining: 10 });
  });
});
