import { decodeJwt } from "jose";
import { beforeEach, describe, expect, it } from "vitest";
import { invoke, sampleEvent } from "../support/fixtures";
import { forgetHookCalls, hookCalls, scriptHook, sleep, useScriptedHooks, useSignInAccount } from "../support/hooks";
import { passwordLogin } from "../support/login";
import { basicCredentials } from "../support/requests";
import { storedItems } from "../support/stored";

/** preTokenIssue (docs/hooks.md): claims added to the password and refresh grants' tokens, within limits. */

const PASSWORD = "a long enough passphrase";
const SCOPE = "svc_api_user";
const seeded = useSignInAccount(PASSWORD);

beforeEach(() => {
  useScriptedHooks({ preTokenIssue: 300 });
  forgetHookCalls();
});

const login = () => passwordLogin(seeded.client, { username: seeded.account.sub, password: PASSWORD, scope: SCOPE });
const refresh = async (token: string) =>
  invoke(
    "token",
    await sampleEvent("events/token/refresh-token-grant.json", {
      clientBasic: basicCredentials(seeded.client.clientId, seeded.client.secret),
      refreshToken: encodeURIComponent(token),
    }),
  );

describe("preTokenIssue hook", () => {
  it("when the hook adds claims, both tokens carry them and reserved claims are dropped", async () => {
    scriptHook("preTokenIssue", () => ({
      accessToken: {
        claims: { tenant: "acme", roles: ["reader"], iss: "https://evil.example", scope: "svc_api_sys_users" },
      },
      idToken: { claims: { tenant: "acme", email: "someone@else.example", sub: "admin" } },
    }));
    const response = await login();
    expect(response.json).toMatchObject({ token_type: "Bearer" });
    const access = decodeJwt(response.json.access_token as string);
    expect(access).toMatchObject({ tenant: "acme", roles: ["reader"], sub: seeded.account.sub, scope: SCOPE });
    expect(access.iss).not.toBe("https://evil.example");
    const id = decodeJwt(response.json.id_token as string);
    expect(id).toMatchObject({ tenant: "acme", sub: seeded.account.sub });
    expect(id.email).toBeUndefined();
    expect(hookCalls("preTokenIssue")).toEqual([
      {
        version: "1",
        hook: "preTokenIssue",
        clientId: seeded.client.clientId,
        grant: "password",
        sub: seeded.account.sub,
        scopes: SCOPE.split(" "),
      },
    ]);
  });

  it("when a refresh token is used, the hook is asked again and the new access token carries its claims", async () => {
    scriptHook("preTokenIssue", (input) => ({ accessToken: { claims: { tenant: `acme-${input.grant}` } } }));
    const first = await login();
    const next = await refresh(first.json.refresh_token as string);
    expect(next.statusCode).toBe(200);
    expect(decodeJwt(next.json.access_token as string).tenant).toBe("acme-refresh_token");
  });

  it.each([
    ["adds more than 2 KB of claims", () => ({ accessToken: { claims: { blob: "x".repeat(3000) } } })],
    ["times out", () => sleep(1000).then(() => ({}))],
    ["answers outside its contract", () => ({ accessToken: { tenant: "acme" } })],
    ["throws", () => Promise.reject(new Error("claims store down"))],
  ])("when the hook %s, the grant fails closed with 503 and no session is opened", async (_what, script) => {
    scriptHook("preTokenIssue", script);
    const sessionsBefore = (await storedItems(seeded.account.sub, "SESSION#")).length;
    const response = await login();
    expect(response.statusCode).toBe(503);
    expect(response.json).toEqual({
      error: "temporarily_unavailable",
      error_description: "a sign-in check could not be completed; try again",
    });
    expect(await storedItems(seeded.account.sub, "SESSION#")).toHaveLength(sessionsBefore);
  });

  it("when the hook fails at a refresh, the refresh token is not spent and works once the hook answers", async () => {
    scriptHook("preTokenIssue", () => ({}));
    const first = await login();
    scriptHook("preTokenIssue", () => Promise.reject(new Error("down")));
    expect((await refresh(first.json.refresh_token as string)).statusCode).toBe(503);
    scriptHook("preTokenIssue", () => ({}));
    expect((await refresh(first.json.refresh_token as string)).statusCode).toBe(200);
  });
});
