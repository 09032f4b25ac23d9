import { decodeJwt } from "jose";
import { describe, expect, it } from "vitest";
import { loginDeps, services } from "../../lib/container";
import type { Account } from "../../lib/domain/accounts/account";
import { passwordGrant } from "../../lib/domain/login/password-grant";
import { roundTripCount } from "../../lib/store/client";
import { createClient, seedAccount, systemBearer } from "../support/fixtures";
import { readOwnAccount, request } from "../support/requests";
import { storedItems } from "../support/stored";
import { watchCalls } from "../support/watch-calls";

const PASSWORD = "correct horse battery staple";
const SCOPES = "svc_api_user svc_api_uapps svc_api_uapps_chg svc_api_usec_chg";

async function signIn(account: Account, userAgent: string) {
  const client = await createClient(SCOPES.split(" "));
  const record = await services().clients.getWithSecrets(client.clientId);
  const tokens = await passwordGrant(
    record as never,
    { username: account.sub, password: PASSWORD, scope: SCOPES, ip: "198.51.100.7", userAgent },
    loginDeps(),
  );
  return { ...tokens, uaId: decodeJwt(tokens.id_token).ua_id as string };
}

describe("devices and sessions (interface §4.14)", () => {
  it("when the user lists devices, each login's device is there with the fields of interface §2.7, on /uas and /apps", async () => {
    const account = await seedAccount({}, PASSWORD);
    const phone = await signIn(
      account,
      "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148 Safari/604.1",
    );
    await signIn(account, "Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/129.0.0.0 Safari/537.36");
    for (const sample of ["events/devices/list-uas.json", "events/devices/list-apps.json"]) {
      const response = await request("devices", sample, {
        params: { subjectId: account.sub },
        authorization: `Bearer ${phone.access_token}`,
      });
      expect(response.statusCode).toBe(200);
      const devices = response.json as unknown as Array<Record<string, unknown>>;
      expect(devices).toHaveLength(2);
      const iphone = devices.find((d) => d.id === phone.uaId);
      expect(iphone).toEqual({
        id: phone.uaId,
        deviceId: phone.uaId,
        subjectId: account.sub,
        name: expect.stringContaining("iOS"),
        tp: expect.stringContaining("Safari"),
        os: "iOS 17.0",
        deviceType: "mobile",
        device: "Apple iPhone",
        latestIp: "198.51.100.7",
        lastUsed: expect.any(Number),
        newlyCreated: true,
        trusted: false,
        cls: false,
      });
    }
  });

  it("when a user lists their own devices, the Query follows the session check: three round trips", async () => {
    const account = await seedAccount({}, PASSWORD);
    const phone = await signIn(account, "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Mobile/15E148");
    const sessions = services().sessions;
    const order: string[] = [];
    const restore = [
      watchCalls(sessions, "sessionAndAccount", "session check", order),
      watchCalls(sessions, "listDevices", "devices read", order),
    ];
    try {
      const before = roundTripCount();
      const response = await request("devices", "events/devices/list-uas.json", {
        params: { subjectId: account.sub },
        authorization: `Bearer ${phone.access_token}`,
      });
      expect(response.statusCode).toBe(200);
      expect((response.json as unknown as Array<{ id: string }>).map((d) => d.id)).toEqual([phone.uaId]);
      expect(order).toEqual([
        "session check sent",
        "session check answered",
        "devices read sent",
        "devices read answered",
      ]);
      // Session check, devices Query, the security event.
      expect(roundTripCount() - before).toBe(3);
    } finally {
      for (const undo of restore) undo();
    }
  });

  it("when the session has ended, the call is refused and the devices are not read", async () => {
    const account = await seedAccount({}, PASSWORD);
    const phone = await signIn(account, "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Mobile/15E148");
    const sessions = services().sessions;
    await sessions.endSessionsAndDevices(account.sub, { session: () => true, device: () => false });
    const order: string[] = [];
    const restore = watchCalls(sessions, "listDevices", "devices read", order);
    try {
      const response = await request("devices", "events/devices/list-uas.json", {
        params: { subjectId: account.sub },
        authorization: `Bearer ${phone.access_token}`,
      });
      expect(response.statusCode).toBe(401);
      expect(response.json).toMatchObject({ error: "bad_access_token", desc: "session_ended" });
      expect(JSON.stringify(response.json)).not.toContain(phone.uaId);
      expect(order).toEqual([]);
    } finally {
      restore();
    }
  });

  it("when a device is deleted, its sessions end at once, refresh included, and other devices stay", async () => {
    const account = await seedAccount({}, PASSWORD);
    const first = await signIn(account, "First/1.0");
    const second = await signIn(account, "Second/1.0");
    const response = await request("devices", "events/devices/delete-uas.json", {
      params: { subjectId: account.sub, id: first.uaId },
      values: { deviceId: first.uaId },
      authorization: await systemBearer(["svc_api_sys_uapps_chg"]),
    });
    expect(response.statusCode).toBe(204);
    expect((await readOwnAccount(account.sub, first.access_token)).json).toMatchObject({ desc: "session_ended" });
    expect((await readOwnAccount(account.sub, second.access_token)).statusCode).toBe(200);
    const again = await request("devices", "events/devices/delete-uas.json", {
      params: { subjectId: account.sub, id: first.uaId },
      values: { deviceId: first.uaId },
      authorization: await systemBearer(["svc_api_sys_uapps_chg"]),
    });
    expect(again.statusCode).toBe(404);
    expect(again.json).toMatchObject({ error: "unknown_device" });
  });

  it("when sessions are reset with SVC-CI-UA-ID, every other session ends and that one lives", async () => {
    const account = await seedAccount({}, PASSWORD);
    const kept = await signIn(account, "Kept/1.0");
    const ended = await signIn(account, "Ended/1.0");
    await readOwnAccount(account.sub, kept.access_token); // warm: signing keys are read once per container
    const before = roundTripCount();
    const response = await request("devices", "events/devices/sessions-reset.json", {
      params: { subjectId: account.sub },
      values: { keepDeviceId: kept.uaId },
      authorization: `Bearer ${kept.access_token}`,
      headers: { "svc-ci-ua-id": kept.uaId },
    });
    expect(response.statusCode).toBe(204);
    // Session check, one Query of the account's partition, one transaction: deletes and the security event.
    expect(roundTripCount() - before).toBe(3);
    const events = (await storedItems(account.sub, "EVENT#")).filter((e) => e.type === "sessions_reset");
    expect(events).toEqual([expect.objectContaining({ result: "ok", sbj: account.sub })]);
    expect((await readOwnAccount(account.sub, kept.access_token)).statusCode).toBe(200);
    expect((await readOwnAccount(account.sub, ended.access_token)).json).toMatchObject({ desc: "session_ended" });
    expect((await services().sessions.listDevices(account.sub)).length).toBe(2);
  });

  it("when a user token names another account, it is refused; an unknown account is 404", async () => {
    const account = await seedAccount({}, PASSWORD);
    const other = await seedAccount();
    const mine = await signIn(account, "Mine/1.0");
    const refused = await request("devices", "events/devices/list-uas.json", {
      params: { subjectId: other.sub },
      authorization: `Bearer ${mine.access_token}`,
    });
    expect(refused.json).toMatchObject({ error: "bad_access_token", desc: "wrong_subject" });
    const unknown = await request("devices", "events/devices/list-uas.json", {
      params: { subjectId: "nobody-here" },
      authorization: await systemBearer(["svc_api_sys_uapps"]),
    });
    expect(unknown.statusCode).toBe(404);
  });
});

describe("security events of user-mode calls (interface §6)", () => {
  it("when a user calls, an event with the user's address and User-Agent is stored, refusals too", async () => {
    const account = await seedAccount({}, PASSWORD);
    const session = await signIn(account, "Events/1.0");
    await readOwnAccount(account.sub, session.access_token);
    await request("security", "events/security/auth-change.json", {
      params: { subjectId: account.sub },
      body: { requiredFactor: 2 },
      authorization: `Bearer ${(await signIn(account, "Events/2.0")).access_token}`,
    });
    const { QueryCommand } = await import("@aws-sdk/lib-dynamodb");
    const { documentClient } = await import("../../lib/document-client");
    const { config } = await import("../../lib/config");
    const { Items } = await documentClient().send(
      new QueryCommand({
        TableName: config().tableName,
        KeyConditionExpression: "PK = :pk AND begins_with(SK, :e)",
        ExpressionAttributeValues: { ":pk": `USER#${account.sub}`, ":e": "EVENT#" },
        ConsistentRead: true,
      }),
    );
    const byType = Object.fromEntries((Items ?? []).map((e) => [e.type, e]));
    expect(byType["users.get"]).toMatchObject({
      sbj: account.sub,
      ip: "203.0.113.10",
      ua: "curl/8.5.0",
      result: "ok",
      sid: expect.any(String),
    });
    expect(byType["security.auth-change"]).toMatchObject({ result: "has_not_sf_methods", ua: "curl/8.5.0" });
  });
});
