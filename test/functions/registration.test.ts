import { ScanCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { config } from "../../lib/config";
import { services } from "../../lib/container";
import { documentClient } from "../../lib/document-client";
import { instanceIdOf } from "../../lib/domain/accounts/instance-id";
import { verifyPassword } from "../../lib/domain/credentials/password-hash";
import { digestSecret } from "../../lib/domain/credentials/secret-digest";
import { keys } from "../../lib/store/keys";
import { invoke, sampleEvent, seedAccount, uniqueId } from "../support/fixtures";
import { lastCode, outbox } from "../support/outbox";
import { confirmRegistration } from "../support/requests";

function freshContacts() {
  const id = uniqueId("");
  return {
    sub: uniqueId("reg-"),
    email: `${id}@example.com`,
    phone: `7${String(Math.floor(Math.random() * 1e10)).padStart(10, "0")}`,
  };
}

async function registerWithCodes(values = freshContacts()) {
  const response = await invoke(
    "registration",
    await sampleEvent("events/registration/register-with-codes.json", values),
  );
  return { response, ...values, context: response.json.context as string };
}

async function tableItems() {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await documentClient().send(
      new ScanCommand({ TableName: config().tableName, ExclusiveStartKey: start }),
    );
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
}

describe("PUT /svc/reg/api/v3/users", () => {
  it("when every contact is confirmed, it creates the account at once and opens a session", async () => {
    const { sub, email } = freshContacts();
    const response = await invoke(
      "registration",
      await sampleEvent("events/registration/register-confirmed.json", { sub, email }),
    );
    expect(response.statusCode).toBe(200);
    expect(response.json).toMatchObject({ instanceId: instanceIdOf(sub), subject: sub, instructions: [] });
    const cookies = response.json.cookies as Array<{ name: string; value: string }>;
    expect(cookies).toHaveLength(1);
    expect(cookies[0].name).toBe("svc_session");
    const [sid, secret] = cookies[0].value.split(".");
    const account = await services().accounts.get(sub);
    expect(account).toMatchObject({ sub, family_name: "Orlov", email: { value: email, verified: true } });
    const items = await tableItems();
    const session = items.find((i) => i.PK === `USER#${sub}` && i.SK === `SESSION#${sid}`);
    expect(session).toMatchObject({ entity: "session", sub, secretHash: digestSecret(secret) });
    expect(JSON.stringify(session)).not.toContain(secret);
    expect(outbox(email)).toEqual([]);
  });

  it("when contacts are unconfirmed, it sends a code to each and answers the instructions of interface §3.3", async () => {
    const before = Math.floor(Date.now() / 1000);
    const { response, sub, email, phone, context } = await registerWithCodes();
    expect(response.statusCode).toBe(200);
    expect(Object.keys(response.json).sort()).toEqual(["context", "instructions"]);
    expect(context).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    const instructions = response.json.instructions as Array<Record<string, unknown>>;
    expect(instructions).toEqual([
      { mobile: phone, exp: expect.any(Number), attemts: 3, name: "mbl-enter-code" },
      { email, exp: expect.any(Number), attemts: 3, name: "eml-enter-code" },
    ]);
    expect(instructions[0].exp).toBeGreaterThanOrEqual(before + 600);
    // English, because the sample event sends Accept-Language: en.
    const [sms] = outbox(phone);
    expect(sms).toMatchObject({ channel: "sms", lang: "en" });
    expect(sms.text).toMatch(/Your code to finish your registration: \d{6}\./);
    const [mail] = outbox(email);
    expect(mail).toMatchObject({ channel: "email", subject: "Your confirmation code", lang: "en" });
    // Nothing is an account yet; the codes are stored only as digests.
    expect(await services().accounts.get(sub)).toBeUndefined();
    const items = await tableItems();
    const pending = items.find((i) => i.PK === keys.registration(context).PK);
    expect(pending).toBeDefined();
    expect(JSON.stringify(pending)).not.toContain(lastCode(phone));
    expect(JSON.stringify(pending)).not.toContain("violet-Kettle-42-river");
  });

  it("when the user confirms both codes, one wrong try first, it walks the instructions and creates the account", async () => {
    const { sub, email, phone, context } = await registerWithCodes();
    const wrong = await confirmRegistration(context, { sms_code: lastCode(phone) === "000000" ? "111111" : "000000" });
    expect(wrong.statusCode).toBe(200);
    expect(wrong.json.instructions).toEqual([
      { mobile: phone, exp: expect.any(Number), attemts: 2, name: "mbl-try-again" },
      { email, exp: expect.any(Number), attemts: 3, name: "eml-enter-code" },
    ]);
    const sms = await confirmRegistration(context, { sms_code: lastCode(phone) });
    expect(sms.json).toEqual({
      instructions: [{ email, exp: expect.any(Number), attemts: 3, name: "eml-enter-code" }],
      context,
    });
    expect(await services().accounts.get(sub)).toBeUndefined();
    const mail = await confirmRegistration(context, { email_code: lastCode(email) });
    expect(mail.statusCode).toBe(200);
    expect(mail.json).toMatchObject({ instanceId: instanceIdOf(sub), subject: sub, context, instructions: [] });
    expect((mail.json.cookies as unknown[]).length).toBe(1);
    const account = await services().accounts.get(sub);
    expect(account).toMatchObject({
      family_name: "Sidorova",
      phone_number: { value: phone, verified: true },
      email: { value: email, verified: true },
    });
    // The password given at registration is the account's password.
    const items = await tableItems();
    const credential = items.find(
      (i) => i.PK === keys.passwordCredential(sub).PK && i.SK === keys.passwordCredential(sub).SK,
    );
    expect(await verifyPassword("violet-Kettle-42-river", credential as never)).toBe(true);
    // The context is single use.
    const again = await confirmRegistration(context, { email_code: lastCode(email) });
    expect(again.statusCode).toBe(404);
    expect(again.json).toEqual({
      errors: [{ errMsg: "no registration waits under this context: unknown, finished or expired", field: "context" }],
      context: "",
    });
  });

  it("when the attempts run out, even the right code is refused until a new one is sent", async () => {
    const { phone, context } = await registerWithCodes();
    const right = lastCode(phone);
    const wrongCode = right === "000000" ? "111111" : "000000";
    for (const left of [2, 1]) {
      const answer = await confirmRegistration(context, { sms_code: wrongCode });
      expect((answer.json.instructions as Array<{ attemts: number }>)[0].attemts).toBe(left);
    }
    const last = await confirmRegistration(context, { sms_code: wrongCode });
    expect((last.json.instructions as unknown[])[0]).toEqual({ mobile: phone, name: "mbl-no-attempts" });
    const refused = await confirmRegistration(context, { sms_code: right });
    expect((refused.json.instructions as unknown[])[0]).toEqual({ mobile: phone, name: "mbl-no-attempts" });

    const resent = await confirmRegistration(context, { sms_code_resend: "1" });
    expect((resent.json.instructions as unknown[])[0]).toEqual({
      mobile: phone,
      exp: expect.any(Number),
      attemts: 3,
      name: "mbl-enter-code",
    });
    expect(outbox(phone)).toHaveLength(2);
    const accepted = await confirmRegistration(context, { sms_code: lastCode(phone) });
    expect((accepted.json.instructions as Array<{ name: string }>).map((i) => i.name)).toEqual(["eml-enter-code"]);
  });

  it("when wrong codes arrive all at once, no more than the allowed attempts are counted and none is accepted after", async () => {
    const { phone, context } = await registerWithCodes();
    const right = lastCode(phone);
    const wrongCode = right === "000000" ? "111111" : "000000";
    const answers = await Promise.all(
      Array.from({ length: 12 }, () => confirmRegistration(context, { sms_code: wrongCode })),
    );
    const attemptsSeen = answers.map((a) => (a.json.instructions as Array<{ attemts?: number }>)[0].attemts);
    expect(attemptsSeen.filter((n) => n !== undefined).length).toBeLessThanOrEqual(3);
    const item = (await tableItems()).find((i) => i.PK === keys.registration(context).PK) as {
      contacts: { phone_number: { attemptsLeft: number } };
    };
    expect(item.contacts.phone_number.attemptsLeft).toBe(0);
    const refused = await confirmRegistration(context, { sms_code: right });
    expect((refused.json.instructions as Array<{ name: string }>)[0].name).toBe("mbl-no-attempts");
  });

  it("when fifty registrations race for one e-mail, exactly one account exists and the others list email", async () => {
    const email = `${uniqueId("race")}@example.com`;
    const responses = await Promise.all(
      Array.from({ length: 50 }, async () =>
        invoke(
          "registration",
          await sampleEvent("events/registration/register-confirmed.json", { sub: uniqueId("racer-"), email }),
        ),
      ),
    );
    const won = responses.filter((r) => r.statusCode === 200);
    const lost = responses.filter((r) => r.statusCode !== 200);
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(49);
    for (const r of lost) {
      expect(r.statusCode).toBe(409);
      expect(r.json).toEqual({
        errors: [{ errMsg: "the value is already used by another account", field: "email" }],
        context: "",
      });
    }
    const items = await tableItems();
    const profiles = items.filter((i) => i.entity === "user" && (i.email as { value: string })?.value === email);
    expect(profiles).toHaveLength(1);
    const winner = won[0].json.subject;
    expect(profiles[0].sub).toBe(winner);
    expect(items.filter((i) => i.PK === keys.uniqueEmail(email).PK)).toEqual([
      expect.objectContaining({ owner: winner }),
    ]);
    // No session, claim or profile of a loser was left behind.
    const racers = items.filter((i) => String(i.PK).startsWith("USER#racer-"));
    expect(new Set(racers.map((i) => i.PK))).toEqual(new Set([`USER#${winner}`]));
  });

  it("when sub, e-mail and phone are all taken, the failure lists every field", async () => {
    const taken = await seedAccount();
    const response = await invoke(
      "registration",
      await sampleEvent("events/registration/register-with-codes.json", {
        sub: taken.sub,
        email: taken.email?.value as string,
        phone: taken.phone_number?.value as string,
      }),
    );
    expect(response.statusCode).toBe(409);
    expect((response.json.errors as Array<{ field: string }>).map((e) => e.field).sort()).toEqual([
      "email",
      "phone_number",
      "sub",
    ]);
    expect(response.json.context).toBe("");
    expect(outbox(taken.email?.value)).toEqual([]);
  });

  it("when the input is bad, it answers the registration error shape and stores nothing", async () => {
    const itemsBefore = (await tableItems()).length;
    const sentBefore = outbox().length;
    const response = await invoke("registration", await sampleEvent("events/registration/register-invalid.json"));
    expect(response.statusCode).toBe(400);
    expect(response.json.context).toBe("");
    const fields = (response.json.errors as Array<{ field: string }>).map((e) => e.field);
    expect([...new Set(fields)].sort()).toEqual(["email", "password", "phone_number"]);
    expect((await tableItems()).length).toBe(itemsBefore);
    expect(outbox().length).toBe(sentBefore);
    const password = (response.json.errors as Array<{ field: string; errMsg: string }>).filter(
      (e) => e.field === "password",
    );
    expect(password.map((p) => p.errMsg)).toEqual([
      "the password must have at least 8 characters",
      "the password is one of the most common passwords",
    ]);
  });

  it.each([
    ["missing user.attrs", { user: {} }, "user.attrs"],
    ["no user", {}, "user"],
    ["a number for a name", { user: { attrs: { family_name: 5 } } }, "user.attrs.family_name"],
    ["an unknown attribute", { user: { attrs: { nickname: "x" } } }, "user.attrs.nickname"],
    ["a 100 KB attribute", { user: { attrs: { given_name: "x".repeat(100 * 1024) } } }, "user.attrs.given_name"],
    ["an unknown action", { user: { attrs: {} }, actions: [{ type: "fly", client_id: "dyn~a~b" }] }, "actions.0.type"],
  ])("when the body has %s, it answers 400 naming the field", async (_, body, field) => {
    const event = await sampleEvent("events/registration/register-confirmed.json", {
      sub: "x",
      email: "x@example.com",
    });
    event.body = JSON.stringify(body);
    const response = await invoke("registration", event);
    expect(response.statusCode).toBe(400);
    expect(response.json.context).toBe("");
    expect((response.json.errors as Array<{ field: string }>).map((e) => e.field)).toContain(field);
  });

  it("when the body is not JSON, it answers 400 in the registration shape", async () => {
    const event = await sampleEvent("events/registration/register-confirmed.json", {
      sub: "x",
      email: "x@example.com",
    });
    event.body = "{";
    const response = await invoke("registration", event);
    expect(response.statusCode).toBe(400);
    expect(response.json).toEqual({ errors: [{ errMsg: "the body is not valid JSON", field: "" }], context: "" });
  });

  it("when the token lacks svc_api_sys_users_reg, it answers 401 in the registration shape", async () => {
    const event = await sampleEvent("events/registration/register-confirmed.json", {
      sub: "x",
      email: "x@example.com",
    });
    event.headers.authorization = `Bearer ${await (await import("../support/fixtures")).systemToken(["svc_api_sys_users"])}`;
    const response = await invoke("registration", event);
    expect(response.statusCode).toBe(401);
    expect(response.json).toEqual({ errors: [{ errMsg: "insufficient_scope", field: "" }], context: "" });
  });
});

describe("POST /svc/reg/api/v3/users/{context}", () => {
  it("when the context is unknown or malformed, it answers in the registration shape", async () => {
    const unknown = await confirmRegistration("no-such-context", { sms_code: "123456" });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json.context).toBe("");
    const event = await sampleEvent("events/registration/confirm-sms-code.json", {
      context: "bad context!",
      code: "1",
    });
    event.pathParameters = { context: "bad context!" };
    const malformed = await invoke("registration", event);
    expect(malformed.statusCode).toBe(400);
  });

  it("when two fields or none are sent, it answers 400", async () => {
    const { context } = await registerWithCodes();
    expect((await confirmRegistration(context, { sms_code: "1", email_code: "2" })).statusCode).toBe(400);
    expect((await confirmRegistration(context, {})).statusCode).toBe(400);
  });

  it("when a code is sent for a contact that does not wait, it says so", async () => {
    const { sub, email } = freshContacts();
    const values = { sub, email, phone: "" };
    const event = await sampleEvent("events/registration/register-with-codes.json", {
      ...values,
      phone: "79990000000",
    });
    const body = JSON.parse(event.body as string);
    delete body.user.attrs.phone_number;
    event.body = JSON.stringify(body);
    const started = await invoke("registration", event);
    const response = await confirmRegistration(started.json.context as string, { sms_code: "123456" });
    expect(response.statusCode).toBe(400);
    expect(response.json.errors).toEqual([
      { errMsg: "no phone number of this registration waits for a code", field: "sms_code" },
    ]);
  });

  it("when codes are resent too often, it answers 429 after the fifth code", async () => {
    const { phone, context } = await registerWithCodes();
    for (let i = 0; i < 4; i++)
      expect((await confirmRegistration(context, { sms_code_resend: "1" })).statusCode).toBe(200);
    const refused = await confirmRegistration(context, { sms_code_resend: "1" });
    expect(refused.statusCode).toBe(429);
    expect(refused.json.errors).toEqual([
      { errMsg: "no more codes can be sent for this contact", field: "sms_code_resend" },
    ]);
    expect(outbox(phone)).toHaveLength(5);
  });
});
