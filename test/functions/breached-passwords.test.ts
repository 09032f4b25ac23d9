import { createServer } from "node:net";
import { afterAll, beforeEach, describe, expect, it, vi } from "vitest";
import { registrationDeps, services } from "../../lib/container";
import type { Account } from "../../lib/domain/accounts/account";
import { instanceIdOf } from "../../lib/domain/accounts/instance-id";
import { verifyPassword } from "../../lib/domain/credentials/password-hash";
import type { ApiError } from "../../lib/domain/errors";
import { register } from "../../lib/domain/registration/register";
import { mintUserToken } from "../../lib/local/user-token";
import { registerPage } from "../../lib/pages/registration";
import { createClient, invoke, sampleEvent, seedAccount, uniqueId } from "../support/fixtures";
import { linesOf, useLogLevel } from "../support/log-lines";
import { passwordLogin } from "../support/login";
import { useSettings } from "../support/oauth-provider";
import { sha1Hex, startRangeServer } from "../support/pwned-range";
import { request } from "../support/requests";
import { storedItems, storedPasswordCredential } from "../support/stored";

/**
 * New passwords are looked up in a Pwned Passwords range API (passwordPolicy.breachedPasswords):
 * a real HTTP server on loopback speaking the protocol, so what left the service is read
 * from what the server received.
 */

const OLD = "correct horse battery staple";
/** Passes every other rule; the range server knows it from breaches. */
const BREACHED = "monkey island nineteen ninety";
/** Passes every rule; its suffix is served as padding (count 0) only. */
const SAFE = "a brand new passphrase";

const range = await startRangeServer({ [BREACHED]: 4321 }, [SAFE]);
afterAll(() => range.stop());

const lookingUp = (rangeUrl = range.rangeUrl) =>
  useSettings({ passwordPolicy: { breachedPasswords: { rangeUrl, timeoutMs: 300 } } });

beforeEach(() => {
  lookingUp();
  range.answer("protocol");
  range.requests.length = 0;
});

async function userChange(account: Account, password: string) {
  const token = (await mintUserToken(account.sub, "app", ["svc_api_usec_chg"], 600)).token;
  return request("passwords", "events/passwords/change-user-mode.json", {
    params: { subjectId: instanceIdOf(account.sub) },
    body: { current: OLD, password },
    authorization: `Bearer ${token}`,
  });
}

async function registration(password: string) {
  const sub = uniqueId("pwned-");
  const email = `${uniqueId("pwned")}@example.com`;
  const event = await sampleEvent("events/registration/register-confirmed.json", { sub, email });
  event.body = JSON.stringify({
    user: { attrs: { sub, family_name: "Orlov", email: { value: email, verified: true } }, credentials: { password } },
  });
  return { response: await invoke("registration", event), sub, email };
}

describe("breached-password lookup on a new password", () => {
  it("when a user changes to a breached password, it answers password_policy_violated breached_password and keeps the old one", async () => {
    const account = await seedAccount({}, OLD);
    const response = await userChange(account, BREACHED);
    expect(response.statusCode).toBe(400);
    expect(response.json).toEqual({
      type: "input_error",
      error: "password_policy_violated",
      desc: "the password appears in known data breaches",
      pos: "password",
      params: { rule: "breached_password" },
    });
    expect(await verifyPassword(OLD, await storedPasswordCredential(account.sub))).toBe(true);
    const events = (await storedItems(account.sub, "EVENT#")).filter((e) => e.type === "password_change");
    expect(events.map((e) => e.result)).toEqual(["password_policy_violated"]);
    expect(JSON.stringify(events)).not.toContain(BREACHED);
    expect(response.body).not.toContain(BREACHED);
  });

  it("when an account registers with a breached password, it answers the registration error and stores nothing", async () => {
    const { response, sub, email } = await registration(BREACHED);
    expect(response.statusCode).toBe(400);
    expect(response.json).toEqual({
      errors: [{ errMsg: "the password appears in known data breaches", field: "password" }],
      context: "",
    });
    expect(await services().accounts.get(sub)).toBeUndefined();
    expect(await services().accounts.claimOwner("email", email)).toBeUndefined();
  });

  it("when the hosted registration page is refused, the registration's problem carries the rule and the page names it in both languages", async () => {
    const refusal = (await register(
      { user: { attrs: { email: { value: `${uniqueId("page")}@example.com` } }, credentials: { password: BREACHED } } },
      { clientId: "app", language: "ru", sessionCookie: false },
      registrationDeps(),
    ).catch((error: unknown) => error)) as ApiError;
    const problems = refusal.details.errors ?? [];
    expect(problems.map((p) => p.params)).toEqual([{ rule: "breached_password" }]);
    const violations = [{ rule: "breached_password" } as const];
    const state = { interaction: "i", csrf: "c" };
    expect(registerPage({ lang: "ru", state, violations })).toContain("пароль встречается в утечках данных");
    expect(registerPage({ lang: "en", state, violations })).toContain("the password appears in known data breaches");
  });

  it("when a forced change at login picks a breached password, the grant is refused and the flag stays", async () => {
    const client = await createClient(["svc_api_user"]);
    const account = await seedAccount({ needPasswordChange: true }, OLD);
    const login = (new_password: string) =>
      passwordLogin(client, { scope: "svc_api_user", username: account.sub, password: OLD, new_password });
    const refused = await login(BREACHED);
    expect(refused.json).toEqual({
      error: "invalid_grant",
      error_description: "new_password: the password appears in known data breaches",
    });
    expect((await services().accounts.get(account.sub))?.needPasswordChange).toBe(true);
    expect((await login(SAFE)).statusCode).toBe(200);
  });

  it("when the password is not breached (its suffix only padding), it is stored; only the 5-character prefix left, with Add-Padding", async () => {
    const account = await seedAccount({}, OLD);
    expect((await userChange(account, SAFE)).statusCode).toBe(204);
    expect(await verifyPassword(SAFE, await storedPasswordCredential(account.sub))).toBe(true);
    const { response } = await registration(SAFE);
    expect(response.statusCode).toBe(200);

    const hash = sha1Hex(SAFE);
    expect(range.requests.map((r) => r.url)).toEqual([`/range/${hash.slice(0, 5)}`, `/range/${hash.slice(0, 5)}`]);
    for (const seen of range.requests) expect(seen.headers["add-padding"]).toBe("true");
    const everything = JSON.stringify(range.requests).toUpperCase();
    expect(everything).not.toContain(hash.slice(5));
    expect(everything).not.toContain(SAFE.toUpperCase());
  });

  it("when another rule already refuses the password, no lookup is made", async () => {
    const account = await seedAccount({}, OLD);
    const response = await userChange(account, "password1");
    expect(response.json).toMatchObject({ params: { rule: "in_password_dic" } });
    expect(range.requests).toEqual([]);
  });

  it("when no range API is configured, breached passwords are not looked up", async () => {
    useSettings({});
    const account = await seedAccount({}, OLD);
    expect((await userChange(account, BREACHED)).statusCode).toBe(204);
    expect(range.requests).toEqual([]);
  });
});

describe("a lookup that fails", () => {
  useLogLevel("warn");

  /** A loopback port nothing listens on. */
  async function closedPort(): Promise<number> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    await new Promise((resolve) => server.close(resolve));
    return port;
  }

  it.each([
    ["the server is down", "down", /ECONNREFUSED/],
    ["the server does not answer in time", "silent", /no answer within 300 ms/],
    ["the server answers 500", "status-500", /answered 500/],
    ["the answer is not SUFFIX:COUNT lines", "garbage", /not SUFFIX:COUNT/],
  ] as const)(
    "when %s, the change goes through and a warning names the prefix, never the password",
    async (_, behaviour, reason) => {
      if (behaviour === "down") lookingUp(`http://127.0.0.1:${await closedPort()}/range`);
      else range.answer(behaviour);
      const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
      const account = await seedAccount({}, OLD);
      const response = await userChange(account, BREACHED);
      expect(response.statusCode).toBe(204);
      expect(await verifyPassword(BREACHED, await storedPasswordCredential(account.sub))).toBe(true);

      const warning = linesOf(stderr).find((l) => String(l.message).startsWith("breached-password lookup failed"));
      expect(warning).toMatchObject({ level: "warn", rangePrefix: sha1Hex(BREACHED).slice(0, 5) });
      expect(String(warning?.reason)).toMatch(reason);
      const written = stderr.mock.calls.map(([text]) => String(text)).join("");
      expect(written).not.toContain(BREACHED);
      expect(written.toUpperCase()).not.toContain(sha1Hex(BREACHED).slice(5));
    },
  );
});
