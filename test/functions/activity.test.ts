import { ScanCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { config } from "../../lib/config";
import { services } from "../../lib/container";
import { documentClient } from "../../lib/document-client";
import type { SecurityEvent } from "../../lib/domain/audit/security-event";
import { gsi1 } from "../../lib/store/keys";
import { createClient, invoke, sampleEvent, seedAccount, systemBearer, uniqueId } from "../support/fixtures";
import { passwordLogin } from "../support/login";
import { request } from "../support/requests";

/**
 * Every account's security events for operators (interface §4.18): the listing across
 * accounts from the index by hour and shard, and the hourly counts of the dashboard.
 */

const HOUR = 3_600_000;

interface Listed extends SecurityEvent {
  id: string;
}

async function list(query: Record<string, string>) {
  return request("audit", "events/activity/events.json", { query });
}

/** Every page of a listing, following `next`. */
async function listAll(query: Record<string, string>, pageSize: number) {
  const pages: Listed[][] = [];
  let cursor: string | undefined;
  do {
    const answer = await list({ ...query, limit: String(pageSize), ...(cursor && { cursor }) });
    expect(answer.statusCode, answer.body).toBe(200);
    const body = answer.json as { events: Listed[]; next?: string };
    expect(body.events.length).toBeLessThanOrEqual(pageSize);
    pages.push(body.events);
    cursor = body.next;
    expect(pages.length).toBeLessThan(200);
  } while (cursor);
  return pages;
}

/** Events of `count` accounts around an hour's start: half just before it, half just after. */
async function eventsAround(hourStart: number, count: number, type = uniqueId("t-")) {
  const written: SecurityEvent[] = [];
  for (let i = 0; i < count; i++) {
    const event: SecurityEvent = {
      sbj: uniqueId("acct-"),
      ts: hourStart + (i % 2 === 0 ? -1 - i * 7 : i * 7),
      type,
      cId: i % 3 === 0 ? "console" : "web",
      ip: "203.0.113.7",
      result: i % 4 === 0 ? "invalid_credential" : "ok",
    };
    await services().events.record(event);
    written.push(event);
  }
  return { type, written };
}

const newestFirst = (events: SecurityEvent[]) => [...events].sort((a, b) => b.ts - a.ts).map((e) => `${e.ts} ${e.sbj}`);
const keyOf = (events: SecurityEvent[]) => events.map((e) => `${e.ts} ${e.sbj}`);

describe("GET /svc/admin/api/v3/security-events", () => {
  const hourStart = Math.floor(Date.now() / HOUR) * HOUR - 3 * HOUR;

  it("when events of many accounts straddle an hour's start, pages merge the shards newest first with none lost or repeated", async () => {
    const { type, written } = await eventsAround(hourStart, 40);
    const shards = new Set(written.map((e) => gsi1.securityEvent(e.sbj, e.ts, "x").GSI1PK));
    // Both hours, several shards each: the merge is what is tested.
    expect(shards.size).toBeGreaterThan(6);
    const pages = await listAll({ type }, 7);
    const seen = pages.flat();
    expect(keyOf(seen)).toEqual(newestFirst(written));
    expect(new Set(seen.map((e) => e.id)).size).toBe(written.length);
    expect(seen[0]).toMatchObject({ type, ip: "203.0.113.7", cId: expect.any(String), result: expect.any(String) });
  });

  it("when filtered by result, outcome, account, application or time, only those events come, in order", async () => {
    const { type, written } = await eventsAround(hourStart - 6 * HOUR, 24);
    const flat = async (query: Record<string, string>) => (await listAll({ type, ...query }, 100)).flat();
    expect(keyOf(await flat({ outcome: "refused" }))).toEqual(newestFirst(written.filter((e) => e.result !== "ok")));
    expect(keyOf(await flat({ outcome: "ok" }))).toEqual(newestFirst(written.filter((e) => e.result === "ok")));
    expect(keyOf(await flat({ result: "invalid_credential" }))).toEqual(
      newestFirst(written.filter((e) => e.result === "invalid_credential")),
    );
    expect(keyOf(await flat({ cId: "console" }))).toEqual(newestFirst(written.filter((e) => e.cId === "console")));
    const one = written[5];
    expect(keyOf(await flat({ sbj: one.sbj }))).toEqual(keyOf([one]));
    const from = hourStart - 6 * HOUR;
    const window = { from: String(from), to: String(from + 50) };
    expect(keyOf(await flat(window))).toEqual(newestFirst(written.filter((e) => e.ts >= from && e.ts <= from + 50)));
  });

  it("when the sign-in flows record events, they carry the index projection and the listing shows them", async () => {
    const client = await createClient();
    const account = await seedAccount({}, "Correct-Horse-42");
    const ok = await passwordLogin(client, {
      username: account.sub,
      password: "Correct-Horse-42",
      scope: "svc_api_user",
    });
    expect(ok.statusCode).toBe(200);
    const wrong = await passwordLogin(client, {
      username: account.sub,
      password: "wrong-password-1",
      scope: "svc_api_user",
    });
    expect(wrong.statusCode).toBe(400);
    const sub = uniqueId("reg-");
    const registered = await invoke(
      "registration",
      await sampleEvent("events/registration/register-confirmed.json", { sub, email: `${sub}@example.com` }),
    );
    expect(registered.statusCode, registered.body).toBe(200);

    const logins = (await listAll({ type: "login", sbj: account.sub }, 10)).flat();
    // Sign-ins stamp whole seconds, so the two may share a ts: their order is then the ids'.
    expect(logins.map((e) => e.result).sort()).toEqual(["invalid_credential", "ok"]);
    expect(logins[0].ts).toBeGreaterThanOrEqual(logins[1].ts);
    const registration = (await listAll({ type: "registration", sbj: sub }, 10)).flat();
    expect(registration).toMatchObject([{ sbj: sub, type: "registration", result: "ok" }]);

    // Every event item the flows wrote, whatever wrote it, is in the index.
    const { Items = [] } = await documentClient().send(
      new ScanCommand({
        TableName: config().tableName,
        FilterExpression: "entity = :e",
        ExpressionAttributeValues: { ":e": "security-event" },
      }),
    );
    expect(Items.length).toBeGreaterThan(60);
    expect(Items.filter((item) => !String(item.GSI1PK).startsWith("EVENTS#"))).toEqual([]);
  });

  it("when a filter matches a few of many events of one shard and hour, a page ends where the shard stopped reading and the next goes on", async () => {
    const sbj = uniqueId("busy-");
    const start = hourStart - 10 * HOUR;
    const type = uniqueId("rare-");
    // More than a page reads of one shard (2 calls of 200): the rare ones are the oldest.
    const written: SecurityEvent[] = Array.from({ length: 450 }, (_, i) => ({
      sbj,
      ts: start + 1000 + i,
      type: i < 3 ? type : "noise",
      cId: "web",
      result: "ok",
    }));
    for (let i = 0; i < written.length; i += 50)
      await Promise.all(written.slice(i, i + 50).map((event) => services().events.record(event)));
    const pages = await listAll({ type, sbj, from: String(start), to: String(start + HOUR - 1) }, 2);
    expect(pages[0]).toEqual([]);
    expect(keyOf(pages.flat())).toEqual(newestFirst(written.filter((e) => e.type === type)));
  });

  it.each([
    ["not base64url", "not a cursor!", "input_error"],
    ["base64url of something else", Buffer.from("hello").toString("base64url"), "wrong_value"],
    ["a position with a foreign id", Buffer.from("1700000000000.ab#cd").toString("base64url"), "wrong_value"],
  ])("when the cursor is %s, it answers 400 in the v3 shape", async (_, cursor, error) => {
    const answer = await list({ cursor });
    expect(answer.statusCode).toBe(400);
    expect(answer.json).toMatchObject({ type: "input_error" });
    if (error === "wrong_value") expect(answer.json).toMatchObject({ error: "wrong_value", pos: "cursor" });
  });

  it("when a well-formed cursor points anywhere, even before the window, it answers a page and never fails", async () => {
    for (const at of ["0.", "1.AAAAAAAA", "999999999999999.zzzz", `${Date.now()}.`]) {
      const answer = await list({ cursor: Buffer.from(at).toString("base64url"), limit: "5" });
      expect(answer.statusCode, `${at}: ${answer.body}`).toBe(200);
    }
    expect((await list({ cursor: Buffer.from("0.").toString("base64url") })).json).toEqual({ events: [] });
  });

  it("when the limit or the time is out of range, or the token may not read audit trails, it refuses", async () => {
    const refused: Record<string, string>[] = [
      { limit: "0" },
      { limit: "101" },
      { from: "-5" },
      { outcome: "maybe" },
      { other: "x" },
    ];
    for (const query of refused) {
      const answer = await list(query);
      expect(answer.statusCode, JSON.stringify(query)).toBe(400);
    }
    const answer = await request("audit", "events/activity/events.json", {
      authorization: await systemBearer(["svc_api_sys_users"]),
    });
    expect(answer.statusCode).toBe(401);
  });
});

describe("GET /svc/admin/api/v3/security-events/summary", () => {
  it("when events were written in past hours, each hour's counts equal what was written there", async () => {
    const now = Date.now();
    const current = Math.floor(now / HOUR) * HOUR;
    const before = (await request("audit", "events/activity/summary.json", { query: { hours: "72" } })).json as {
      hours: Array<{ start: number; signIns: number; failedSignIns: number; throttled: number; registrations: number }>;
    };
    const planned = [
      { hoursAgo: 40, ok: 5, failed: 3, throttled: 2, registrations: 2 },
      { hoursAgo: 41, ok: 1, failed: 0, throttled: 0, registrations: 0 },
      { hoursAgo: 71, ok: 0, failed: 4, throttled: 1, registrations: 1 },
    ];
    for (const { hoursAgo, ok, failed, throttled, registrations } of planned) {
      const start = current - hoursAgo * HOUR;
      const write = (type: string, result: string, i: number, prms?: Record<string, string>) =>
        services().events.record({ sbj: uniqueId("s-"), ts: start + 1 + i * 1000, type, cId: "web", result, prms });
      for (let i = 0; i < ok; i++) await write("login", "ok", i);
      // The first `throttled` failures each engaged a limit; the rest did not.
      for (let i = 0; i < failed; i++)
        await write("login", i % 2 ? "otp_invalid" : "invalid_credential", i, {
          method: "password",
          ...(i < throttled && { limit: i % 2 ? "wait" : "address_hour" }),
        });
      for (let i = 0; i < registrations; i++) await write("registration", "ok", i);
      // Other events of the hour are not counted.
      await write("password_change", "ok", 0);
    }
    const answer = await request("audit", "events/activity/summary.json", { query: { hours: "72" } });
    expect(answer.statusCode, answer.body).toBe(200);
    const summary = answer.json as typeof before & { totals: Record<string, number> };
    expect(summary.hours).toHaveLength(72);
    expect(summary.hours.at(-1)?.start).toBe(current);
    expect(summary.hours[0].start).toBe(current - 71 * HOUR);
    for (const { hoursAgo, ok, failed, throttled, registrations } of planned) {
      const start = current - hoursAgo * HOUR;
      const was = before.hours.find((h) => h.start === start) ?? {
        signIns: 0,
        failedSignIns: 0,
        throttled: 0,
        registrations: 0,
      };
      expect(summary.hours.find((h) => h.start === start)).toEqual({
        start,
        signIns: was.signIns + ok,
        failedSignIns: was.failedSignIns + failed,
        throttled: was.throttled + throttled,
        registrations: was.registrations + registrations,
      });
    }
    const sum = (name: "signIns" | "failedSignIns" | "throttled" | "registrations") =>
      summary.hours.reduce((total, hour) => total + hour[name], 0);
    expect(summary.totals).toEqual({
      signIns: sum("signIns"),
      failedSignIns: sum("failedSignIns"),
      throttled: sum("throttled"),
      registrations: sum("registrations"),
    });
  });

  it("when hours is out of 1-72, it answers 400", async () => {
    for (const hours of ["0", "73", "x", "-1"]) {
      const answer = await request("audit", "events/activity/summary.json", { query: { hours } });
      expect(answer.statusCode, hours).toBe(400);
      expect(answer.json).toMatchObject({ type: "input_error" });
    }
  });
});

describe("GET /svc/admin/api/v3/identity-events", () => {
  const listKept = (query: Record<string, string>) =>
    request("audit", "events/activity/identity-events.json", { query });

  /** Events of `subjects` kept around an hour's start, as the events function keeps what it published. */
  async function keptAround(hourStart: number, subjects: string[]) {
    const events = subjects.flatMap((subject, i) =>
      ["svc.identity.session.started", "svc.identity.account.updated"].map((type, j) => ({
        id: `${uniqueId("rec")}:${type.slice("svc.identity.".length)}`,
        type,
        time: new Date(hourStart + (i % 2 === 0 ? -1 : 1) * (1000 + i * 10 + j)).toISOString(),
        subject,
        data: { sub: subject, n: i },
      })),
    );
    await services().identityEvents.keep(events);
    return events;
  }

  it("when events were kept across an hour's start, pages of any size list each once, newest first, filtered by type and subject", async () => {
    const hourStart = Math.floor(Date.now() / HOUR) * HOUR - 2 * HOUR;
    const subjects = Array.from({ length: 9 }, () => uniqueId("idev-"));
    const written = await keptAround(hourStart, subjects);
    const window = { from: String(hourStart - HOUR), to: String(hourStart + HOUR) };
    for (const size of [1, 4, 100]) {
      const seen: Array<{ id: string; time: string; subject: string }> = [];
      let cursor: string | undefined;
      do {
        const answer = await listKept({ ...window, limit: String(size), ...(cursor && { cursor }) });
        expect(answer.statusCode, answer.body).toBe(200);
        const body = answer.json as { events: typeof seen; next?: string };
        expect(body.events.length).toBeLessThanOrEqual(size);
        seen.push(...body.events);
        cursor = body.next;
      } while (cursor);
      const ours = seen.filter((e) => subjects.includes(e.subject));
      expect(ours.map((e) => e.id).sort()).toEqual(written.map((e) => e.id).sort());
      expect(new Set(seen.map((e) => e.id)).size).toBe(seen.length);
      const times = seen.map((e) => e.time);
      expect(times).toEqual([...times].sort().reverse());
    }
    // One subject: its one shard only, both its events as kept.
    const one = await listKept({ ...window, subject: subjects[3] });
    expect((one.json as { events: unknown[] }).events).toEqual(
      written
        .filter((e) => e.subject === subjects[3])
        .sort((a, b) => (a.time < b.time ? 1 : -1))
        .map(({ id, type, time, subject, data }) => ({ id, type, time, subject, data })),
    );
    const typed = await listKept({ ...window, type: "svc.identity.account.updated", limit: "100" });
    const typedEvents = (typed.json as { events: Array<{ type: string; subject: string }> }).events;
    expect(typedEvents.every((e) => e.type === "svc.identity.account.updated")).toBe(true);
    expect(typedEvents.filter((e) => subjects.includes(e.subject))).toHaveLength(subjects.length);
  });

  it("when events share a second, the stream's sequence numbers order them, newest first", async () => {
    const subject = uniqueId("same-second-");
    const time = new Date(Math.floor(Date.now() / 1000) * 1000 - 5000).toISOString();
    // Sequence numbers are decimal and grow in length: 9 < 10 < 100 as numbers, not as text.
    await services().identityEvents.keep(
      ["9", "100", "10"].map((sequence) => ({
        id: `rec-${sequence}:account.updated`,
        type: "svc.identity.account.updated",
        time,
        subject,
        data: { sub: subject },
        sequence,
      })),
    );
    const answer = await listKept({ subject });
    expect((answer.json as { events: Array<{ id: string }> }).events.map((e) => e.id)).toEqual([
      "rec-100:account.updated",
      "rec-10:account.updated",
      "rec-9:account.updated",
    ]);
  });

  it("when the query is malformed, it answers 400 in the v3 shape and without the audit permission 401", async () => {
    const malformed: Record<string, string>[] = [
      { type: "session.started" },
      { type: "svc.identity.nothing" },
      { cursor: "!!" },
      { cursor: Buffer.from("not a position").toString("base64url") },
      { limit: "0" },
      { from: "soon" },
      { other: "x" },
    ];
    for (const query of malformed) {
      const answer = await listKept(query);
      expect(answer.statusCode, JSON.stringify(query)).toBe(400);
      expect(answer.json, JSON.stringify(query)).toMatchObject({
        type: expect.stringMatching(/input_error|wrong_value/),
      });
    }
    const answer = await request("audit", "events/activity/identity-events.json", {
      authorization: await systemBearer(["svc_api_sys_users"]),
    });
    expect(answer.statusCode).toBe(401);
  });
});
