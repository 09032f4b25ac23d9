import { PutCommand, QueryCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { config } from "../../lib/config";
import { services } from "../../lib/container";
import { documentClient } from "../../lib/document-client";
import { lockInactiveAccounts } from "../../lib/domain/security/account-state";
import { mintUserToken } from "../../lib/local/user-token";
import { gsi1, keys } from "../../lib/store/keys";
import { seedAccount, systemBearer } from "../support/fixtures";
import { request } from "../support/requests";

describe("authentication modes (interface §4.12)", () => {
  it("when read for a fresh account, it answers the defaults", async () => {
    const account = await seedAccount();
    const response = await request("security", "events/security/auth-get.json", {
      params: { subjectId: account.sub },
      authorization: await systemBearer(["svc_api_sys_usec"]),
    });
    expect(response.statusCode).toBe(200);
    expect(response.json).toEqual({ needPasswordChange: false, methodsLocked: [] });
  });

  it("when changed, it stores the modes and answers the resulting three fields", async () => {
    const account = await seedAccount();
    const auth = await systemBearer(["svc_api_sys_usec_chg"]);
    const set = await request("security", "events/security/auth-change.json", {
      params: { subjectId: account.sub },
      body: { needPasswordChange: true, methodsLocked: ["password"] },
      authorization: auth,
    });
    expect(set.json).toEqual({ needPasswordChange: true, methodsLocked: ["password"] });
    expect(await services().accounts.get(account.sub)).toMatchObject({
      needPasswordChange: true,
      methodsLocked: ["password"],
    });
    const unlocked = await request("security", "events/security/auth-change.json", {
      params: { subjectId: account.sub },
      body: { methodsLocked: [] },
      authorization: auth,
    });
    expect(unlocked.json).toEqual({ needPasswordChange: true, methodsLocked: [] });
  });

  it.each([
    [{ needPasswordChange: false }, "needPasswordChange"],
    [{ methodsLocked: ["sms"] }, "methodsLocked.0"],
    [{ requiredFactor: 1 }, "requiredFactor"],
    [{}, "body"],
  ])("when the body is %j, it answers 400 naming the field", async (body, pos) => {
    const account = await seedAccount();
    const response = await request("security", "events/security/auth-change.json", {
      params: { subjectId: account.sub },
      body,
      authorization: await systemBearer(["svc_api_sys_usec_chg"]),
    });
    expect(response.statusCode).toBe(400);
    expect((response.json.errors as Array<{ pos: string }>).map((e) => e.pos)).toContain(pos);
  });

  it("when a second factor is required of an account without one, it answers has_not_sf_methods; with a TOTP generator it works", async () => {
    const account = await seedAccount();
    const body = { requiredFactor: 2 };
    const refused = await request("security", "events/security/auth-change.json", {
      params: { subjectId: account.sub },
      body,
      authorization: await systemBearer(["svc_api_sys_usec_chg"]),
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json).toEqual({
      type: "input_error",
      error: "has_not_sf_methods",
      desc: "the account has no second-factor method (TOTP, passkey, or a confirmed e-mail or phone when codes by it are on)",
      pos: "requiredFactor",
    });
    // A TOTP generator item is what makes a second-factor method (interface §4.15).
    await documentClient().send(
      new PutCommand({
        TableName: config().tableName,
        Item: { PK: keys.userPartition(account.sub), SK: `${keys.totpPrefix}t1` },
      }),
    );
    const accepted = await request("security", "events/security/auth-change.json", {
      params: { subjectId: account.sub },
      body,
      authorization: await systemBearer(["svc_api_sys_usec_chg"]),
    });
    expect(accepted.json).toEqual({ requiredFactor: 2, needPasswordChange: false, methodsLocked: [] });
  });
});

describe("account state (interface §3.1, 4.13)", () => {
  it("when never signed in, it is initial; a user reads their own", async () => {
    const account = await seedAccount();
    const token = (await mintUserToken(account.sub, "app", ["svc_api_usec"], 600)).token;
    const response = await request("security", "events/security/state-get.json", {
      params: { subjectId: account.sub },
      authorization: `Bearer ${token}`,
    });
    expect(response.json).toEqual({ name: "initial" });
  });

  it("when made untouchable, with and without till, and when till is now, the state follows", async () => {
    const account = await seedAccount();
    const set = async (body: unknown) =>
      request("security", "events/security/state-untouchable.json", {
        params: { subjectId: account.sub },
        body,
        authorization: await systemBearer(["svc_api_sys_usec_chg"]),
      });
    const read = async () =>
      (
        await request("security", "events/security/state-get.json", {
          params: { subjectId: account.sub },
          authorization: await systemBearer(["svc_api_sys_usec"]),
        })
      ).json;
    expect((await set({ name: "untouchable" })).statusCode).toBe(204);
    expect(await read()).toEqual({ name: "untouchable" });
    const till = Math.floor(Date.now() / 1000) + 3600;
    await set({ name: "untouchable", till });
    expect(await read()).toEqual({ name: "untouchable", till });
    await set({ name: "untouchable", till: Math.floor(Date.now() / 1000) });
    expect(await read()).toEqual({ name: "active", checkedOn: expect.any(Number) });
  });

  it("when a user token tries to set the state, it is refused (system permission only)", async () => {
    const account = await seedAccount();
    const token = (await mintUserToken(account.sub, "app", ["svc_api_usec_chg"], 600)).token;
    const response = await request("security", "events/security/state-untouchable.json", {
      params: { subjectId: account.sub },
      body: { name: "untouchable" },
      authorization: `Bearer ${token}`,
    });
    expect(response.statusCode).toBe(401);
    expect(response.json.desc).toBe("insufficient_scope");
  });

  it("when another name is sent, it answers 400", async () => {
    const account = await seedAccount();
    const response = await request("security", "events/security/state-untouchable.json", {
      params: { subjectId: account.sub },
      body: { name: "active" },
      authorization: await systemBearer(["svc_api_sys_usec_chg"]),
    });
    expect(response.statusCode).toBe(400);
  });
});

describe("the inactivity job", () => {
  it("when accounts are inactive past lockAfterDays, it locks them, but never untouchable ones, and reads only the index", async () => {
    const old = Math.floor(Date.now() / 1000) - 100 * 86_400;
    const stale = await seedAccount({ createdAt: old, updatedAt: old });
    const guarded = await seedAccount({ createdAt: old, updatedAt: old });
    const fresh = await seedAccount();
    const store = services().accountSecurity;
    await request("security", "events/security/state-untouchable.json", {
      params: { subjectId: guarded.sub },
      body: { name: "untouchable" },
      authorization: await systemBearer(["svc_api_sys_usec_chg"]),
    });
    const now = Math.floor(Date.now() / 1000);
    // A session left open from before: the lock ends it, so its client hears (Back-Channel Logout).
    const session = { sid: "s-stale", sub: stale.sub, clientId: "c", secretHash: "x", createdAt: old, lastUsedAt: old };
    await services().sessions.open({ ...session, expiresAt: now + 86_400 });
    const result = await lockInactiveAccounts(store, services().sessions, 30, gsi1.inactivityShards, now);
    expect(await services().sessions.listSessions(stale.sub)).toEqual([]);
    expect(result.locked).toBeGreaterThanOrEqual(1);
    expect((await services().accounts.get(stale.sub))?.state).toEqual({ name: "inactivityLock", on: now });
    expect((await services().accounts.get(guarded.sub))?.state).toEqual({ name: "untouchable" });
    expect((await services().accounts.get(fresh.sub))?.state).toBeUndefined();
    // Locked accounts leave the index: a second run finds nothing more to lock for them.
    const again = await lockInactiveAccounts(store, services().sessions, 30, gsi1.inactivityShards, now);
    expect(again.locked).toBe(0);
  });

  it("when lockAfterDays is 0 (off), it does nothing", async () => {
    expect(
      await lockInactiveAccounts(services().accountSecurity, services().sessions, 0, gsi1.inactivityShards, 0),
    ).toEqual({
      examined: 0,
      locked: 0,
    });
  });

  it("when run through its sample event, it answers a summary", async () => {
    const { handler } = await import("../../functions/jobs");
    const result = await handler({ job: "inactivity-lock" });
    expect(result).toMatchObject({ job: "inactivity-lock", examined: expect.any(Number), locked: expect.any(Number) });
  });

  it("when the table is large, it queries the index partitions, never scans", async () => {
    const { Items } = await documentClient().send(
      new QueryCommand({
        TableName: config().tableName,
        IndexName: gsi1.indexName,
        KeyConditionExpression: "GSI1PK = :pk",
        ExpressionAttributeValues: { ":pk": gsi1.inactivityShard(0) },
        Limit: 1,
      }),
    );
    expect(Array.isArray(Items)).toBe(true);
  });
});
