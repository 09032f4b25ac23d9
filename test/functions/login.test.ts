import { PutCommand } from "@aws-sdk/lib-dynamodb";
import { decodeJwt } from "jose";
import { describe, expect, it } from "vitest";
import { config } from "../../lib/config";
import { loginDeps, services } from "../../lib/container";
import { documentClient } from "../../lib/document-client";
import type { Account } from "../../lib/domain/accounts/account";
import { BRUTE_FORCE, THROTTLED } from "../../lib/domain/login/brute-force";
import { passwordGrant } from "../../lib/domain/login/password-grant";
import { keys } from "../../lib/store/keys";
import { createClient, invoke, sampleEvent, seedAccount } from "../support/fixtures";
import { passwordLogin } from "../support/login";
import { basicCredentials, readOwnAccount } from "../support/requests";
import { storedItem, storedItems } from "../support/stored";

const PASSWORD = "correct horse battery staple";
const USER_SCOPES = "svc_api_user svc_api_user_chg svc_api_usec svc_api_usec_chg svc_api_uapps svc_api_uapps_chg";
async function app() {
  return createClient(USER_SCOPES.split(" "));
}

function login(
  client: { clientId: string; secret: string },
  form: Record<string, string>,
  headers: Record<string, string> = {},
) {
  return passwordLogin(client, { scope: USER_SCOPES, ...form }, headers);
}

describe("grant_type=password", () => {
  it("when the password is right, it issues user tokens, records the device and the login, and makes the account active", async () => {
    const client = await app();
    const account = await seedAccount({}, PASSWORD);
    const response = await login(client, { username: account.sub, password: PASSWORD });
    expect(response.statusCode).toBe(200);
    expect(response.headers["cache-control"]).toBe("no-store");
    expect(response.json).toMatchObject({ token_type: "Bearer", expires_in: 3600, scope: USER_SCOPES });
    const access = decodeJwt(response.json.access_token as string);
    const id = decodeJwt(response.json.id_token as string);
    expect(access).toMatchObject({
      sub: account.sub,
      client_id: client.clientId,
      sid: expect.any(String),
      ua_id: expect.any(String),
    });
    expect(id).toMatchObject({ sub: account.sub, aud: client.clientId, ua_id: access.ua_id, sid: access.sid });
    expect(response.json.refresh_token).toMatch(/^rt1\./);

    const [device] = await storedItems(account.sub, "DEVICE#");
    expect(device).toMatchObject({
      id: access.ua_id,
      subjectId: account.sub,
      tp: "Firefox 130",
      os: "Linux",
      latestIp: "198.51.100.23",
      newlyCreated: true,
    });
    const stored = await services().accounts.get(account.sub);
    expect(stored?.state).toEqual({ name: "active", checkedOn: expect.any(Number) });
    const [event] = await storedItems(account.sub, "EVENT#");
    expect(event).toMatchObject({
      type: "login",
      sbj: account.sub,
      cId: client.clientId,
      ip: "198.51.100.23",
      result: "ok",
    });
    expect(JSON.stringify(event)).not.toContain(PASSWORD);
    // The token works on the user's own account, in user mode.
    expect((await readOwnAccount(account.sub, response.json.access_token as string)).statusCode).toBe(200);
  });

  it("when ten logins of one account arrive at once, every one is signed in with a session of its own", async () => {
    const client = await app();
    const account = await seedAccount({}, PASSWORD);
    const responses = await Promise.all(
      Array.from({ length: 10 }, () => login(client, { username: account.sub, password: PASSWORD })),
    );
    expect(responses.map((r) => r.statusCode)).toEqual(Array(10).fill(200));
    const sids = responses.map((r) => decodeJwt(r.json.access_token as string).sid);
    expect(new Set(sids).size).toBe(10);
    const stored = (await storedItems(account.sub, "SESSION#")).map((session) => session.sid);
    expect(new Set(stored)).toEqual(new Set(sids));
  });

  it("when the username is the e-mail or the phone, it signs the same account in", async () => {
    const client = await app();
    const account = await seedAccount({}, PASSWORD);
    for (const username of [account.email?.value.toUpperCase(), `+${account.phone_number?.value}`]) {
      const response = await login(client, { username: username as string, password: PASSWORD });
      expect(response.statusCode, username).toBe(200);
      expect(decodeJwt(response.json.access_token as string).sub).toBe(account.sub);
    }
  });

  it("when the password is wrong or the user unknown, the answer is the same invalid_grant", async () => {
    const client = await app();
    const account = await seedAccount({}, PASSWORD);
    const wrong = await login(client, { username: account.sub, password: "nope" });
    const unknown = await login(client, { username: "nobody-at-all", password: "nope" });
    for (const response of [wrong, unknown]) {
      expect(response.statusCode).toBe(400);
      expect(response.json).toEqual({ error: "invalid_grant", error_description: "invalid username or password" });
    }
  });

  it.each([
    ["locked", { locked: true }, "the account is locked"],
    [
      "inactivity-locked",
      { state: { name: "inactivityLock" as const, on: 1 } },
      "the account is locked for inactivity",
    ],
    ["password-locked", { methodsLocked: ["password"] }, "password login is locked for this account"],
    ["second-factor", { requiredFactor: 2 }, "a second factor is required: send otp or recovery_code"],
    ["forced-change", { needPasswordChange: true }, "a password change is required: send new_password"],
  ])(
    "when the account is %s, a right password is refused with a description that says why",
    async (_, overrides, why) => {
      const client = await app();
      const account = await seedAccount(overrides as Partial<Account>, PASSWORD);
      const response = await login(client, { username: account.sub, password: PASSWORD });
      expect(response.statusCode).toBe(400);
      expect(response.json).toEqual({ error: "invalid_grant", error_description: why });
      expect(await storedItems(account.sub, "SESSION#")).toEqual([]);
    },
  );

  it("when a change is forced and new_password is given, the policy applies, the password changes and the flag clears", async () => {
    const client = await app();
    const account = await seedAccount({ needPasswordChange: true }, PASSWORD);
    const weak = await login(client, { username: account.sub, password: PASSWORD, new_password: "123456" });
    expect(weak.json).toEqual({
      error: "invalid_grant",
      error_description:
        "new_password: the password must have at least 8 characters; the password is one of the most common passwords",
    });
    const ok = await login(client, {
      username: account.sub,
      password: PASSWORD,
      new_password: "a brand new passphrase",
    });
    expect(ok.statusCode).toBe(200);
    expect((await services().accounts.get(account.sub))?.needPasswordChange).toBeUndefined();
    expect((await login(client, { username: account.sub, password: PASSWORD })).statusCode).toBe(400);
    expect((await login(client, { username: account.sub, password: "a brand new passphrase" })).statusCode).toBe(200);
  });

  it("when the app sends SVC-CI-UA-ID of a known device, the login reuses that device", async () => {
    const client = await app();
    const account = await seedAccount({}, PASSWORD);
    const first = decodeJwt(
      (await login(client, { username: account.sub, password: PASSWORD })).json.id_token as string,
    );
    const again = await login(
      client,
      { username: account.sub, password: PASSWORD },
      { "svc-ci-ua-id": first.ua_id as string },
    );
    expect(decodeJwt(again.json.id_token as string).ua_id).toBe(first.ua_id);
    const devices = await storedItems(account.sub, "DEVICE#");
    expect(devices).toHaveLength(1);
    expect(devices[0].newlyCreated).toBe(false);
  });

  it("when a system permission or an ungranted one is asked for, it answers invalid_scope", async () => {
    const client = await createClient(["svc_api_user"]);
    const account = await seedAccount({}, PASSWORD);
    const system = await login(client, { username: account.sub, password: PASSWORD, scope: "svc_api_sys_users" });
    expect(system.json).toEqual({
      error: "invalid_scope",
      error_description: "not user permissions: svc_api_sys_users",
    });
    const ungranted = await login(client, { username: account.sub, password: PASSWORD, scope: "svc_api_user_chg" });
    expect(ungranted.json).toEqual({
      error: "invalid_scope",
      error_description: "not granted to this client: svc_api_user_chg",
    });
  });

  it("when username or password is missing, it answers invalid_request", async () => {
    const client = await app();
    const event = await sampleEvent("events/token/password-grant.json", {
      clientBasic: basicCredentials(client.clientId, client.secret),
      username: "x",
      password: "x",
    });
    event.body = `grant_type=password&scope=${encodeURIComponent(USER_SCOPES)}`;
    const response = await invoke("token", event);
    expect(response.json).toEqual({
      error: "invalid_request",
      error_description: "username and password are required",
    });
  });
});

/** The address's hour as its failures left it. */
function addressFailures(ip: string, now: number, count: number) {
  return documentClient().send(
    new PutCommand({ TableName: config().tableName, Item: { ...keys.ipFailures(ip, Math.floor(now / 3600)), count } }),
  );
}

describe("brute-force protection", () => {
  it("when failures pile up, the account gets a growing wait during which even the right password is not tried", async () => {
    const client = await app();
    const account = await seedAccount({}, PASSWORD);
    const record = await services().clients.getWithSecrets(client.clientId);
    const deps = loginDeps();
    const start = Math.floor(Date.now() / 1000);
    const attempt = (password: string, at: number) =>
      passwordGrant(
        record as never,
        { username: account.sub, password, scope: "svc_api_user", ip: `203.0.113.${(at % 200) + 1}`, userAgent: "t" },
        { ...deps, now: () => at },
      );
    for (let i = 0; i < BRUTE_FORCE.FREE_FAILURES; i++) {
      await expect(attempt("wrong", start)).rejects.toMatchObject({ description: "invalid username or password" });
    }
    await expect(attempt(PASSWORD, start)).rejects.toMatchObject({
      code: "invalid_grant",
      // One text for every limit: it must not tell an account from a name that names none.
      description: THROTTLED,
    });
    // The failure that put up the wait says so on its event (the activity dashboard counts it); the refusal after writes none.
    const events = await services().events.list(account.sub, 0, Date.now() + 60_000, 100);
    const failures = events.filter((event) => event.type === "login");
    expect(failures).toHaveLength(BRUTE_FORCE.FREE_FAILURES);
    expect(failures.filter((event) => event.prms?.limit !== undefined).map((event) => event.prms)).toEqual([
      { method: "password", limit: "wait" },
    ]);
    // After the wait the right password works again and the consecutive count resets.
    await expect(attempt(PASSWORD, start + BRUTE_FORCE.WAIT_STEP + 1)).resolves.toMatchObject({ token_type: "Bearer" });
    await expect(attempt("wrong", start + BRUTE_FORCE.WAIT_STEP + 2)).rejects.toMatchObject({
      description: "invalid username or password",
    });
  });

  it("when a login succeeds after a failure, the failure record is gone; with none on record, it signs in all the same", async () => {
    const client = await app();
    const account = await seedAccount({}, PASSWORD);
    const record = await services().clients.getWithSecrets(client.clientId);
    const attempt = (password: string) =>
      passwordGrant(
        record as never,
        { username: account.sub, password, scope: "svc_api_user", ip: "203.0.113.77", userAgent: "t" },
        loginDeps(),
      );
    await expect(attempt("wrong")).rejects.toMatchObject({ description: "invalid username or password" });
    expect(await storedItem(keys.loginFailures(account.sub))).toMatchObject({ count: 1 });
    await expect(attempt(PASSWORD)).resolves.toMatchObject({ token_type: "Bearer" });
    expect(await storedItem(keys.loginFailures(account.sub))).toBeUndefined();
    await expect(attempt(PASSWORD)).resolves.toMatchObject({ token_type: "Bearer" });
    expect(await storedItem(keys.loginFailures(account.sub))).toBeUndefined();
  });

  it("when a failure fills the address's hour, its event names the address limit", async () => {
    const client = await app();
    const account = await seedAccount({}, PASSWORD);
    const record = await services().clients.getWithSecrets(client.clientId);
    const now = Math.floor(Date.now() / 1000);
    await addressFailures("192.0.2.67", now, BRUTE_FORCE.IP_HOURLY_CAP - 1);
    await expect(
      passwordGrant(
        record as never,
        { username: account.sub, password: "wrong", scope: "svc_api_user", ip: "192.0.2.67", userAgent: "t" },
        { ...loginDeps(), now: () => now },
      ),
    ).rejects.toMatchObject({ description: "invalid username or password" });
    const [event] = await services().events.list(account.sub, 0, Date.now() + 60_000, 10);
    expect(event).toMatchObject({ type: "login", result: "invalid_credential", ip: "192.0.2.67" });
    expect(event.prms).toEqual({ method: "password", limit: "address_hour" });
  });

  it("when one address fails too often, logins from it are refused for the hour, for any account", async () => {
    const client = await app();
    const account = await seedAccount({}, PASSWORD);
    const record = await services().clients.getWithSecrets(client.clientId);
    const now = Math.floor(Date.now() / 1000);
    await addressFailures("192.0.2.66", now, BRUTE_FORCE.IP_HOURLY_CAP);
    await expect(
      passwordGrant(
        record as never,
        { username: account.sub, password: PASSWORD, scope: "svc_api_user", ip: "192.0.2.66", userAgent: "t" },
        { ...loginDeps(), now: () => now },
      ),
    ).rejects.toMatchObject({ description: THROTTLED });
  });
});

describe("grant_type=refresh_token", () => {
  async function refresh(client: { clientId: string; secret: string }, refreshToken: string) {
    return invoke(
      "token",
      await sampleEvent("events/token/refresh-token-grant.json", {
        clientBasic: basicCredentials(client.clientId, client.secret),
        refreshToken: encodeURIComponent(refreshToken),
      }),
    );
  }

  it("when a refresh token is used, it rotates; using the old one again ends the session and its tokens at once", async () => {
    const client = await app();
    const account = await seedAccount({}, PASSWORD);
    const signedIn = await login(client, { username: account.sub, password: PASSWORD });
    const first = signedIn.json.refresh_token as string;
    const rotated = await refresh(client, first);
    expect(rotated.statusCode).toBe(200);
    expect(rotated.json).toMatchObject({ token_type: "Bearer", scope: USER_SCOPES });
    expect(rotated.json.refresh_token).not.toBe(first);
    const access = rotated.json.access_token as string;
    expect(decodeJwt(access).sid).toBe(decodeJwt(signedIn.json.access_token as string).sid);
    expect((await readOwnAccount(account.sub, access)).statusCode).toBe(200);

    const reused = await refresh(client, first);
    expect(reused.json).toEqual({
      error: "invalid_grant",
      error_description: "the refresh token was already used; the session has been ended",
    });
    const refused = await readOwnAccount(account.sub, access);
    expect(refused.statusCode).toBe(401);
    expect(refused.json).toEqual({ type: "security_error", error: "bad_access_token", desc: "session_ended" });
    expect((await refresh(client, rotated.json.refresh_token as string)).json.error_description).toBe(
      "the session has ended",
    );
  });

  it("when another client presents the refresh token, or a malformed one comes, it answers invalid_grant", async () => {
    const client = await app();
    const other = await app();
    const account = await seedAccount({}, PASSWORD);
    const token = (await login(client, { username: account.sub, password: PASSWORD })).json.refresh_token as string;
    expect((await refresh(other, token)).json.error_description).toBe("the refresh token was issued to another client");
    expect((await refresh(client, "rt1.garbage")).json.error_description).toBe("the refresh token is not valid");
  });

  it("when the account is locked after login, its user tokens are refused at once", async () => {
    const client = await app();
    const account = await seedAccount({}, PASSWORD);
    const access = (await login(client, { username: account.sub, password: PASSWORD })).json.access_token as string;
    await services().accounts.update(account.sub, { set: { locked: true }, remove: [] });
    const refused = await readOwnAccount(account.sub, access);
    expect(refused.json).toEqual({ type: "security_error", error: "bad_access_token", desc: "account_locked" });
  });
});
