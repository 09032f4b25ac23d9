import { existsSync, readFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import type { DynamoDBRecord } from "aws-lambda";
import { decodeJwt } from "jose";
import { describe, expect, it } from "vitest";
import { handler } from "../../functions/events";
import { config } from "../../lib/config";
import { instanceIdOf } from "../../lib/domain/accounts/instance-id";
import { type CloudEvent, EVENT_TYPE_PREFIX, EVENT_TYPES } from "../../lib/events/cloud-event";
import { eventSchema } from "../../lib/events/schemas";
import { mintUserToken } from "../../lib/local/user-token";
import { keys } from "../../lib/store/keys";
import {
  createClient,
  invoke,
  sampleEvent,
  seedAccount,
  systemBearer,
  uniqueId,
  userBearer,
} from "../support/fixtures";
import { passwordLogin } from "../support/login";
import { lastCode } from "../support/outbox";
import { confirmRegistration, request } from "../support/requests";
import { storedItem } from "../support/stored";
import { useTableStream } from "../support/table-stream";

/**
 * Real requests through the real handlers on DynamoDB Local, then the table's stream read
 * as Lambda would and run through the events function: one event per committed change,
 * none for a refused request, each valid against its schema (schemas/events).
 */

const PASSWORD = "correct horse battery staple";
const SCOPES = ["svc_api_user", "svc_api_uapps", "svc_api_usec_chg"];
/** Lines of the events file already read by earlier steps. */
let seen = 0;

const ajv = new Ajv2020({ allErrors: true, strict: true });
(addFormats as unknown as (a: Ajv2020) => void)(ajv);
const validators = new Map(EVENT_TYPES.map((type) => [`${EVENT_TYPE_PREFIX}${type}`, ajv.compile(eventSchema(type))]));

const reader = useTableStream();

/**
 * What the requests since the last call committed: the stream's records, and the events
 * the events function published for them (appended to this file's events file).
 */
async function committed(): Promise<{ records: DynamoDBRecord[]; events: CloudEvent[] }> {
  const records = await reader().next();
  if (records.length > 0) expect(await handler({ Records: records })).toEqual({ batchItemFailures: [] });
  const file = config().events.file;
  const lines = existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean) : [];
  const events = lines.slice(seen).map((line) => JSON.parse(line) as CloudEvent);
  seen = lines.length;
  for (const event of events) {
    const validate = validators.get(event.type);
    expect(validate?.(event), `${event.type}: ${JSON.stringify(validate?.errors)}`).toBe(true);
    // Each id is derived from the record it came from.
    expect(
      records.some((r) => event.id.startsWith(`${r.eventID}:`)),
      event.id,
    ).toBe(true);
  }
  // At-least-once consumers de-duplicate by id: one change never yields two events with one id.
  expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
  return { records, events };
}

const typeAndSubject = (events: CloudEvent[]) => events.map((e) => [e.type.slice(EVENT_TYPE_PREFIX.length), e.subject]);

describe("identity events from the table's stream", () => {
  it("when an account registers with codes and confirms both, only the confirmation that creates it (its session and registration event) publishes", async () => {
    await committed();
    const values = {
      sub: uniqueId("reg-"),
      email: `${uniqueId("")}@example.com`,
      phone: `7${String(Math.floor(Math.random() * 1e10)).padStart(10, "0")}`,
    };
    const registered = await invoke(
      "registration",
      await sampleEvent("events/registration/register-with-codes.json", values),
    );
    expect(registered.statusCode).toBe(200);
    const pending = await committed();
    expect(pending.records.length).toBeGreaterThan(0);
    expect(pending.events).toEqual([]);

    const context = registered.json.context as string;
    expect((await confirmRegistration(context, { sms_code: lastCode(values.phone) })).statusCode).toBe(200);
    expect((await committed()).events).toEqual([]);
    expect((await confirmRegistration(context, { email_code: lastCode(values.email) })).statusCode).toBe(200);
    const created = await committed();
    expect(typeAndSubject(created.events)).toEqual([
      ["account.created", values.sub],
      ["password.changed", values.sub],
      ["security.recorded", values.sub],
      ["session.started", values.sub],
    ]);
    expect(created.events[2].data).toMatchObject({ kind: "registration", result: "ok" });
    expect(created.events[0].data).toMatchObject({
      sub: values.sub,
      email: { value: values.email, verified: true },
      phone_number: { value: values.phone, verified: true },
      locked: false,
    });
    expect(created.events[1].data).toMatchObject({ sub: values.sub, initial: true });
    // Every secret of the flow (codes, password hash) stayed out.
    const text = JSON.stringify(created.events);
    expect(text).not.toContain(lastCode(values.email));
    expect(text).not.toContain((await storedItem(keys.passwordCredential(values.sub)))?.hash as string);
  });

  it("when a registration is refused for a taken e-mail, the stream has no record and the account does not exist", async () => {
    const owner = await seedAccount();
    await committed();
    const sub = uniqueId("taken-");
    const refused = await request("registration", "events/registration/register-confirmed.json", {
      values: { sub, email: owner.email?.value as string },
    });
    expect(refused.statusCode).toBe(409);
    const after = await committed();
    expect(after.records).toEqual([]);
    expect(after.events).toEqual([]);
    expect(await storedItem(keys.userProfile(sub))).toBeUndefined();
  });

  it("when the user changes the password, password.changed comes once, with the call's security event and the sessions it ends", async () => {
    const account = await seedAccount({}, PASSWORD);
    const { token } = await mintUserToken(account.sub, "app", ["svc_api_usec_chg"], 600);
    await committed();
    const changed = await request("passwords", "events/passwords/change-user-mode.json", {
      params: { subjectId: instanceIdOf(account.sub) },
      body: { current: PASSWORD, password: "a brand new passphrase" },
      authorization: `Bearer ${token}`,
    });
    expect(changed.statusCode).toBe(204);
    const { events } = await committed();
    expect(typeAndSubject(events).sort()).toEqual([
      ["password.changed", account.sub],
      ["security.recorded", account.sub],
      ["session.ended", account.sub],
    ]);
    const data = (type: string) => events.find((e) => e.type === `${EVENT_TYPE_PREFIX}${type}`)?.data;
    expect(data("password.changed")).toMatchObject({ sub: account.sub, initial: false });
    expect(data("security.recorded")).toMatchObject({ result: "ok", clientId: "app" });
    expect(data("session.ended")).toMatchObject({ sub: account.sub, reason: "ended" });
    expect(JSON.stringify(events)).not.toContain("a brand new passphrase");
  });

  it("when events are published, they are kept for the console: the identity-events listing answers them as published", async () => {
    const account = await seedAccount({}, PASSWORD);
    const { token } = await mintUserToken(account.sub, "app", ["svc_api_usec_chg"], 600);
    await committed();
    const changed = await request("passwords", "events/passwords/change-user-mode.json", {
      params: { subjectId: instanceIdOf(account.sub) },
      body: { current: PASSWORD, password: "another new passphrase" },
      authorization: `Bearer ${token}`,
    });
    expect(changed.statusCode).toBe(204);
    const { records, events } = await committed();
    expect(events.length).toBe(3);
    const listed = await request("audit", "events/activity/identity-events.json", {
      query: { subject: account.sub },
    });
    expect(listed.statusCode, listed.body).toBe(200);
    const kept = (listed.json as { events: Array<Pick<CloudEvent, "id" | "type" | "time" | "subject" | "data">> })
      .events;
    const published = events.map(({ id, type, time, subject, data }) => ({ id, type, time, subject, data }));
    // The account's earlier events (its creation) are kept too; these three are kept as published.
    const ids = new Set(published.map((e) => e.id));
    expect(kept.filter((e) => ids.has(e.id)).sort((a, b) => a.id.localeCompare(b.id))).toEqual(
      [...published].sort((a, b) => a.id.localeCompare(b.id)),
    );
    expect(kept.map((e) => e.type)).toContain("svc.identity.account.created");
    // Newest first.
    expect(kept.map((e) => e.time)).toEqual([...kept.map((e) => e.time)].sort().reverse());
    // Its own writes never reach the function again: the stream's next batch is empty.
    const after = await committed();
    expect(after.records).toEqual([]);
    // Stored with their expiry: audit.identityEventDays (7) after the event.
    const record = records.find((r) => kept[0].id.startsWith(`${r.eventID}:`));
    const sequence = record?.dynamodb?.SequenceNumber;
    const item = await storedItem(keys.identityEvent(account.sub, Date.parse(kept[0].time), kept[0].id, sequence));
    expect(item).toMatchObject({ entity: "identity-event", eventId: kept[0].id });
    expect(item?.expiresAt).toBe(Math.floor(Date.parse(kept[0].time) / 1000) + 7 * 86_400);
  });

  it("when a sign-in fails for a wrong password, exactly one signin.failed is published, and counters publish nothing", async () => {
    const account = await seedAccount({}, PASSWORD);
    const client = await createClient(SCOPES);
    await committed();
    const refused = await passwordLogin(client, {
      username: account.sub,
      password: "not the password",
      scope: SCOPES.join(" "),
    });
    expect(refused.statusCode).toBe(400);
    const { records, events } = await committed();
    expect(records.length).toBeGreaterThan(1);
    expect(typeAndSubject(events)).toEqual([["signin.failed", account.sub]]);
    expect(events[0].data).toMatchObject({ sub: account.sub, reason: "invalid_credential", clientId: client.clientId });
    expect(JSON.stringify(events)).not.toContain("not the password");
  });

  it("when a member is added, group.member_added; when an add is refused (unknown account), no record at all", async () => {
    const member = await seedAccount();
    const groupId = uniqueId("grp-");
    const created = await request("groups", "events/groups/create-group.json", {
      body: { profile: "org", id: groupId, name: "Events" },
    });
    expect(created.statusCode).toBe(201);
    expect(typeAndSubject((await committed()).events)).toEqual([
      ["account.created", member.sub],
      ["group.created", `grps|${groupId}|org`],
    ]);
    const add = (subs: string[]) =>
      request("groups", "events/groups/members-add.json", {
        params: { groupId },
        query: { profile: "org" },
        body: subs.map((subjectId) => ({ subjectId })),
      });
    expect((await add([member.sub])).statusCode).toBe(200);
    const added = await committed();
    // A group of profile org is an organization: its consumers get organization.member_added too.
    expect(typeAndSubject(added.events)).toEqual([
      ["group.member_added", `grps|${groupId}|org`],
      ["organization.member_added", groupId],
    ]);
    expect(added.events[0].data).toEqual({ profile: "org", groupId, sub: member.sub });
    expect(added.events[1].data).toEqual({ orgId: groupId, sub: member.sub });

    const refused = await add([uniqueId("nobody-")]);
    expect(refused.statusCode).toBeGreaterThanOrEqual(400);
    expect((await committed()).records).toEqual([]);
    expect(await storedItem(keys.groupMember("org", groupId, member.sub))).toBeDefined();
  });

  it("when a device is deleted, device.deleted and its session's session.ended come once each", async () => {
    const account = await seedAccount({}, PASSWORD);
    const client = await createClient(SCOPES);
    const login = await passwordLogin(
      client,
      { username: account.sub, password: PASSWORD, scope: SCOPES.join(" ") },
      { "user-agent": "Events/1.0", "x-forwarded-for": "198.51.100.9" },
    );
    expect(login.statusCode).toBe(200);
    const uaId = decodeJwt(login.json.id_token as string).ua_id as string;
    const sid = decodeJwt(login.json.access_token as string).sid as string;
    const signedIn = await committed();
    expect(typeAndSubject(signedIn.events)).toEqual([
      ["account.created", account.sub],
      ["password.changed", account.sub],
      ["session.started", account.sub],
      ["device.added", account.sub],
      ["consent.granted", account.sub],
      ["security.recorded", account.sub],
    ]);
    expect(signedIn.events.at(-1)?.data).toEqual({
      kind: "login",
      result: "ok",
      clientId: client.clientId,
      ip: "198.51.100.9",
      userAgent: "Events/1.0",
      sid,
      method: "password",
    });

    const deleted = await request("devices", "events/devices/delete-uas.json", {
      params: { subjectId: account.sub, id: uaId },
      values: { deviceId: uaId },
      authorization: await systemBearer(["svc_api_sys_uapps_chg"]),
    });
    expect(deleted.statusCode).toBe(204);
    const { events } = await committed();
    expect(typeAndSubject(events).sort()).toEqual([
      ["device.deleted", account.sub],
      ["session.ended", account.sub],
    ]);
    expect(events.find((e) => e.type.endsWith("session.ended"))?.data).toMatchObject({ sid, reason: "ended" });
    expect(events.find((e) => e.type.endsWith("device.deleted"))?.data).toMatchObject({ uaId });
  });

  it("when a user proves a new phone with its code, account.confirmed names it; the waiting change and its code publish nothing", async () => {
    const account = await seedAccount();
    const phone = `7${String(Math.floor(Math.random() * 1e10)).padStart(10, "0")}`;
    const userEvent = async (path: string, values: Record<string, string>) => {
      const event = await sampleEvent(path, values);
      if (event.pathParameters?.subjectId) {
        event.pathParameters = { subjectId: instanceIdOf(account.sub) };
        event.rawPath = `/svc/api/v3/users/${instanceIdOf(account.sub)}`;
      }
      event.headers.authorization = await userBearer(account.sub, ["svc_api_user_chg"]);
      return invoke("users", event);
    };
    // The user's token opens a session and each call records a security event; the rest is the change.
    const ofChange = (events: CloudEvent[]) =>
      typeAndSubject(events).filter(([type]) => type !== "session.started" && type !== "security.recorded");
    await committed();
    const asked = await userEvent("events/users/change-phone-with-code.json", { phone });
    expect(asked.statusCode).toBe(200);
    const waiting = await committed();
    expect(ofChange(waiting.events)).toEqual([]);
    const code = lastCode(phone);
    const state = (asked.json.notes as { actions: { state: string }[] }).actions[0].state;
    const validated = await userEvent("events/users/validate-mobile.json", { state, code });
    expect(validated.statusCode).toBe(200);
    const proven = await committed();
    expect(ofChange(proven.events)).toEqual([["account.confirmed", account.sub]]);
    expect(proven.events.find((e) => e.type.endsWith("account.confirmed"))?.data).toEqual({
      sub: account.sub,
      contact: "phone_number",
      value: phone,
    });
    expect(JSON.stringify([...waiting.events, ...proven.events])).not.toContain(code);
  });
});
