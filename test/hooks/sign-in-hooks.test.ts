import { decodeJwt } from "jose";
import { beforeEach, describe, expect, it } from "vitest";
import { uniqueId } from "../support/fixtures";
import {
  eventually,
  forgetHookCalls,
  hookCalls,
  scriptHook,
  sleep,
  useScriptedHooks,
  useSignInAccount,
} from "../support/hooks";
import { passwordLogin } from "../support/login";
import { storedItems } from "../support/stored";

/** preSignIn and postSignIn (docs/hooks.md) on the password grant, with the scripted module target. */

const PASSWORD = "a long enough passphrase";
const seeded = useSignInAccount(PASSWORD);

beforeEach(() => {
  useScriptedHooks({ preSignIn: 300, postSignIn: 300 });
  forgetHookCalls();
  scriptHook("preSignIn", () => ({ action: "allow" }));
  scriptHook("postSignIn", () => ({}));
});

const login = (username = seeded.account.sub, password = PASSWORD) =>
  passwordLogin(seeded.client, { username, password, scope: "svc_api_user" });
const sessions = async () => (await storedItems(seeded.account.sub, "SESSION#")).length;
/** Login events with this result (events of one second sort by id, so counts, not order). */
const recorded = async (result: string) =>
  ((await storedItems(seeded.account.sub, "EVENT#")) as Array<Record<string, unknown>>).filter(
    (e) => e.type === "login" && e.result === result,
  ).length;

describe("preSignIn hook", () => {
  it("when the hook allows, the sign-in goes on and the hook saw who, how and from where", async () => {
    const response = await login();
    expect(response.statusCode).toBe(200);
    expect(hookCalls("preSignIn")).toEqual([
      {
        version: "1",
        hook: "preSignIn",
        clientId: seeded.client.clientId,
        sub: seeded.account.sub,
        method: "password",
        ip: expect.any(String),
        userAgent: expect.any(String),
      },
    ]);
    // postSignIn runs after the answer: on a busy machine its call would land in the next test.
    await eventually(() => hookCalls("postSignIn").length === 1);
  });

  it("when the hook refuses, the grant answers invalid_grant with its message, no session is opened and the refusal is recorded", async () => {
    scriptHook("preSignIn", () => ({ action: "deny", message: "Sign-in is closed for maintenance" }));
    const before = await sessions();
    const refusals = await recorded("sign_in_refused");
    const response = await login();
    expect(response.statusCode).toBe(400);
    expect(response.json).toEqual({ error: "invalid_grant", error_description: "Sign-in is closed for maintenance" });
    expect(await sessions()).toBe(before);
    expect(await recorded("sign_in_refused")).toBe(refusals + 1);
    expect(hookCalls("postSignIn")).toEqual([]);
  });

  it("when the login is unknown or the password wrong, the hook is not asked", async () => {
    expect((await login(`${uniqueId("nobody")}@example.com`)).statusCode).toBe(400);
    expect((await login(seeded.account.sub, "not the password")).statusCode).toBe(400);
    expect(hookCalls("preSignIn")).toEqual([]);
  });

  it.each([
    ["times out", () => sleep(1000).then(() => ({ action: "allow" }))],
    ["answers outside its contract", () => ({ allow: true })],
    ["throws", () => Promise.reject(new Error("policy service down"))],
  ])("when the hook %s, the sign-in fails closed with 503 and no session is opened", async (_what, script) => {
    scriptHook("preSignIn", script);
    const before = await sessions();
    const failures = await recorded("hook_failed");
    const response = await login();
    expect(response.statusCode).toBe(503);
    expect(response.json).toMatchObject({ error: "temporarily_unavailable" });
    expect(await sessions()).toBe(before);
    expect(await recorded("hook_failed")).toBe(failures + 1);
  });
});

describe("postSignIn hook", () => {
  it("when a sign-in succeeds, the hook is told of its session", async () => {
    const response = await login();
    expect(response.statusCode).toBe(200);
    const sid = decodeJwt(response.json.access_token as string).sid;
    await eventually(() => hookCalls("postSignIn").length === 1);
    expect(hookCalls("postSignIn")[0]).toMatchObject({
      hook: "postSignIn",
      sub: seeded.account.sub,
      method: "password",
      sid,
    });
  });

  it("when the hook fails, the sign-in stands and the hook is retried", async () => {
    let tries = 0;
    scriptHook("postSignIn", () => {
      tries += 1;
      if (tries < 3) throw new Error("analytics down");
      return {};
    });
    const before = await sessions();
    const response = await login();
    expect(response.statusCode).toBe(200);
    expect(await sessions()).toBe(before + 1);
    await eventually(() => tries === 3, 10_000);
  });

  it("when the hook is slow, the answer does not wait for it", async () => {
    scriptHook("postSignIn", () => sleep(2000).then(() => ({})));
    const started = Date.now();
    const response = await login();
    expect(response.statusCode).toBe(200);
    expect(Date.now() - started).toBeLessThan(1500);
  });
});
