import { describe, expect, it } from "vitest";
import type { Account } from "../../lib/domain/accounts/account";
import { instanceIdOf } from "../../lib/domain/accounts/instance-id";
import { verifyPassword } from "../../lib/domain/credentials/password-hash";
import { mintUserToken } from "../../lib/local/user-token";
import { seedAccount, systemBearer, uniqueId } from "../support/fixtures";
import { outbox } from "../support/outbox";
import { request } from "../support/requests";
import { keysReadBy, spentBy } from "../support/round-trips";
import { storedItems, storedPasswordCredential } from "../support/stored";

const OLD = "correct horse battery staple";
const NEW = "a brand new passphrase";

async function userChange(account: Account, body: unknown, token?: string, headers: Record<string, string> = {}) {
  const authorization = `Bearer ${token ?? (await mintUserToken(account.sub, "app", ["svc_api_usec_chg"], 600)).token}`;
  return request("passwords", "events/passwords/change-user-mode.json", {
    params: { subjectId: instanceIdOf(account.sub) },
    body,
    authorization,
    headers,
  });
}

async function systemChange(account: Account, body: unknown) {
  return request("passwords", "events/passwords/change-system-generated-sms.json", {
    params: { subjectId: instanceIdOf(account.sub) },
    body,
    authorization: await systemBearer(["svc_api_sys_usec_chg"]),
  });
}

describe("POST /svc/api/v3/users/{instanceId}/pswd", () => {
  it("when a user changes it with the right current password, it is stored, other sessions end and a notice goes out", async () => {
    const account = await seedAccount({}, OLD);
    const mine = await mintUserToken(account.sub, "app", ["svc_api_usec_chg", "svc_api_user"], 600);
    await mintUserToken(account.sub, "app", ["svc_api_user"], 600); // another session, to be ended
    const {
      result: response,
      reads,
      writes,
    } = await spentBy(() =>
      userChange(account, { current: OLD, password: NEW }, mine.token, { "svc-ci-ua-id": mine.uaId }),
    );
    expect(response.statusCode).toBe(204);
    // The login snapshot rides in the session check; the sessions are read after the commit.
    // Writes: the current password's attempt, taken before the hash (issue 21 item 2), the commit that gives it back, the sessions' end.
    expect({ reads, writes }).toEqual({ reads: 2, writes: 3 });
    expect(await verifyPassword(NEW, await storedPasswordCredential(account.sub))).toBe(true);
    const sessions = (await storedItems(account.sub, "SESSION#")).map((s) => s.sid);
    expect(sessions).toEqual([mine.sid]);
    const notice = outbox(account.email?.value).at(-1);
    expect(notice).toMatchObject({ channel: "email", subject: "Your password was changed", lang: "en" });
    expect(notice?.text).not.toContain(NEW);
    const [event] = (await storedItems(account.sub, "EVENT#")).filter((e) => e.type === "password_change");
    expect(event).toMatchObject({ result: "ok", ip: "203.0.113.10", prms: { mode: "user", generated: false } });
    expect(JSON.stringify(event)).not.toContain(NEW);
  });

  it("when the current password is wrong, it answers 401 invalid_credential and changes nothing", async () => {
    const account = await seedAccount({}, OLD);
    const { result: response, reads } = await spentBy(() => userChange(account, { current: "wrong", password: NEW }));
    expect(response.statusCode).toBe(401);
    expect(reads).toBe(1);
    // The guess counts like a failed login: the counters came with the session check.
    expect(await storedItems(account.sub, "LOGIN_FAILURES")).toContainEqual(expect.objectContaining({ count: 1 }));
    expect(response.json).toEqual({
      type: "security_error",
      error: "invalid_credential",
      desc: "the current password is wrong",
    });
    expect(await verifyPassword(OLD, await storedPasswordCredential(account.sub))).toBe(true);
  });

  it("when current is missing in user mode, or the headers, it answers 400", async () => {
    const account = await seedAccount({}, OLD);
    const missing = await userChange(account, { password: NEW });
    expect(missing.statusCode).toBe(400);
    expect((missing.json.errors as Array<{ pos: string }>)[0].pos).toBe("current");
    const noHeaders = await userChange(account, { current: OLD, password: NEW }, undefined, {});
    expect(noHeaders.statusCode).toBe(204);
    const token = (await mintUserToken(account.sub, "app", ["svc_api_usec_chg"], 600)).token;
    const stripped = await request("passwords", "events/passwords/change-user-mode.json", {
      params: { subjectId: instanceIdOf(account.sub) },
      body: { current: NEW, password: OLD },
      authorization: `Bearer ${token}`,
      headers: { "x-forwarded-for": null, "user-agent": null },
    });
    expect(stripped.statusCode).toBe(400);
    expect((stripped.json.errors as Array<{ pos: string }>).map((e) => e.pos)).toEqual([
      "x-forwarded-for",
      "user-agent",
    ]);
  });

  it("when the new password breaks the policy, it answers password_policy_violated with the rule", async () => {
    const account = await seedAccount({}, OLD);
    const same = await userChange(account, { current: OLD, password: OLD });
    expect(same.json).toMatchObject({
      error: "password_policy_violated",
      pos: "password",
      params: { rule: "eq_current" },
    });
    const common = await systemChange(account, { password: "password1" });
    expect(common.json).toMatchObject({ error: "password_policy_violated", params: { rule: "in_password_dic" } });
  });

  it("when an application asks for a generated password by SMS, the SMS carries a password that works", async () => {
    const account = await seedAccount({}, OLD);
    const response = await systemChange(account, { sendPswdToAttr: "phone_number", resetSessions: false });
    expect(response.statusCode).toBe(204);
    const sms = outbox(account.phone_number?.value).at(-1);
    const generated = /: (\S+)$/.exec(sms?.text ?? "")?.[1] as string;
    expect(generated.length).toBeGreaterThanOrEqual(16);
    expect(await verifyPassword(generated, await storedPasswordCredential(account.sub))).toBe(true);
  });

  it("when an application sets it (no password guess to judge), it reads the account and its credential, no failure counters", async () => {
    const account = await seedAccount({}, OLD);
    const { result, keys } = await keysReadBy(() => systemChange(account, { password: NEW, resetSessions: false }));
    expect(result.statusCode, result.body).toBe(204);
    expect(keys.get(`USER#${account.sub}`)?.sort()).toEqual(["CRED#password", "PROFILE"]);
    expect([...keys.keys()].filter((pk) => pk.startsWith("IPFAIL#"))).toEqual([]);
    expect(await verifyPassword(NEW, await storedPasswordCredential(account.sub))).toBe(true);
  });

  it("when a user changes it, the current password is judged with the account's and the address's failure counters", async () => {
    const account = await seedAccount({}, OLD);
    const { result, keys } = await keysReadBy(() => userChange(account, { current: OLD, password: NEW }));
    expect(result.statusCode, result.body).toBe(204);
    expect(keys.get(`USER#${account.sub}`)).toEqual(
      expect.arrayContaining(["PROFILE", "CRED#password", "LOGIN_FAILURES"]),
    );
    expect([...keys.keys()].some((pk) => pk.startsWith("IPFAIL#"))).toBe(true);
  });

  it("when sendPswdToAttr names something else or the account has no phone, it answers wrong_value", async () => {
    const account = await seedAccount({ phone_number: undefined }, OLD);
    for (const attr of ["email", "phone_number"]) {
      const response = await systemChange(account, { sendPswdToAttr: attr });
      expect(response.statusCode).toBe(400);
      expect(response.json).toMatchObject({ error: "wrong_value", pos: "sendPswdToAttr" });
    }
    expect(await verifyPassword(OLD, await storedPasswordCredential(account.sub))).toBe(true);
  });

  it("when resetSessions is left out, every session ends and devices are forgotten", async () => {
    const account = await seedAccount({}, OLD);
    await mintUserToken(account.sub, "app", ["svc_api_user"], 600);
    expect((await systemChange(account, { password: NEW })).statusCode).toBe(204);
    expect(await storedItems(account.sub, "SESSION#")).toEqual([]);
    expect(await storedItems(account.sub, "DEVICE#")).toEqual([]);
  });
});

describe("POST /svc/api/v2/users/{subjectId}/password", () => {
  it("when the lead holds change_password over the account, the password is set; without the right, access_denied", async () => {
    const lead = await seedAccount();
    const managed = await seedAccount({}, OLD);
    const token = (await mintUserToken(lead.sub, "app", ["svc_change_password"], 600)).token;
    const call = () =>
      request("passwords", "events/passwords/subordinate-password.json", {
        params: { subjectId: managed.sub },
        body: { value: NEW },
        authorization: `Bearer ${token}`,
      });
    const denied = await call();
    expect(denied.statusCode).toBe(403);
    const accessDenied = {
      errors: [
        {
          code: "access_denied",
          desc: "the lead account lacks the right change_password over this account",
          params: { right: "change_password" },
        },
      ],
    };
    expect(denied.json).toEqual(accessDenied);
    // Without the right, an unknown account answers the same: the lead learns nothing.
    const unknown = await request("passwords", "events/passwords/subordinate-password.json", {
      params: { subjectId: "nobody-here" },
      body: { value: NEW },
      authorization: `Bearer ${token}`,
    });
    expect(unknown.json).toEqual(accessDenied);
    await grantChangePassword(lead.sub, managed.sub);
    await mintUserToken(managed.sub, "app", ["svc_api_user"], 600); // a session of the managed account, to be ended
    const { result: spent, keys } = await keysReadBy(() => spentBy(call));
    const { result: allowed, reads, writes } = spent;
    expect(allowed.statusCode).toBe(200);
    // The lead's right and the managed account's snapshot ride in the lead's session check.
    expect({ reads, writes }).toEqual({ reads: 2, writes: 2 });
    // No password guess is judged, so no failure counters are read.
    expect(keys.get(`USER#${managed.sub}`)?.sort()).toEqual(["CRED#password", "PROFILE"]);
    expect(await storedItems(managed.sub, "SESSION#")).toEqual([]);
    expect(await verifyPassword(NEW, await storedPasswordCredential(managed.sub))).toBe(true);
  });
});

/** The managed account consents: a user grants rights over its own account only. */
async function grantChangePassword(lead: string, managed: string) {
  const response = await request("rights", "events/rights/change-rights-user.json", {
    body: {
      update: [{ subject: lead, object: managed, rights: ["change_password"], tags: [uniqueId("t")] }],
      delete: [],
    },
    authorization: `Bearer ${(await mintUserToken(managed, "app", ["svc_user_rights"], 600)).token}`,
  });
  expect(response.statusCode).toBe(200);
}
