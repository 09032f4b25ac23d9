import { UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { config } from "../../lib/config";
import { services } from "../../lib/container";
import { documentClient } from "../../lib/document-client";
import type { Account } from "../../lib/domain/accounts/account";
import { instanceIdOf } from "../../lib/domain/accounts/instance-id";
import { keys } from "../../lib/store/keys";
import { invoke, sampleEvent, seedAccount, uniqueId, userBearer } from "../support/fixtures";
import { lastCode, outbox } from "../support/outbox";

const newPhone = () => `7${String(Math.floor(Math.random() * 1e10)).padStart(10, "0")}`;

/** A sample event re-pointed at `account`, with its placeholders filled. */
async function pointed(path: string, account: Account, values: Record<string, string>) {
  const event = await sampleEvent(path, values);
  const id = instanceIdOf(account.sub);
  if (event.pathParameters?.subjectId) {
    event.pathParameters = { subjectId: id };
    event.rawPath = `/svc/api/v3/users/${id}`;
  }
  if (event.headers.authorization?.includes("sample-user") || path.includes("phone")) {
    event.headers.authorization = await userBearer(account.sub, ["svc_api_user_chg"]);
  }
  return event;
}

async function requestPhoneChange(account: Account, phone = newPhone()) {
  const response = await invoke("users", await pointed("events/users/change-phone-with-code.json", account, { phone }));
  const actions = (response.json.notes as { actions: Array<{ state: string }> } | undefined)?.actions ?? [];
  return { response, phone, state: actions[0]?.state };
}

async function validateMobile(account: Account, state: string, code: string) {
  const event = await pointed("events/users/validate-mobile.json", account, { state, code });
  event.headers.authorization = await userBearer(account.sub, ["svc_api_user_chg"]);
  return invoke("users", event);
}

describe("phone change with confirmation (interface §4.6, 3.2)", () => {
  it("when a user asks for a new phone, a code goes to it and notes.actions shows the waiting change; the old phone stays", async () => {
    const account = await seedAccount();
    const before = Math.floor(Date.now() / 1000);
    const { response, phone, state } = await requestPhoneChange(account);
    expect(response.statusCode).toBe(200);
    expect(response.json.phone_number).toEqual({ value: account.phone_number?.value, vrf: true });
    expect(response.json.notes).toEqual({
      actions: [
        {
          state,
          exp: 600,
          status: "code_waiting",
          from: account.phone_number?.value,
          attr: "phone_number",
          attempts_left: 3,
          value: phone,
          action: "validate_mobile",
          created: expect.any(Number),
        },
      ],
    });
    expect((response.json.notes as { actions: Array<{ created: number }> }).actions[0].created).toBeGreaterThanOrEqual(
      before,
    );
    expect(outbox(phone)[0].text).toMatch(/^Ваш код для подтверждения нового контакта: \d{6}\./);
    // Reading the account shows the waiting change too.
    const read = await invoke(
      "users",
      await pointed("events/users/get-user-system.json", account, {}).then((e) => {
        e.pathParameters = { subjectId: account.sub };
        return e;
      }),
    );
    expect((read.json.notes as { actions: unknown[] }).actions).toHaveLength(1);
  });

  it("when the right code is sent, the phone changes, is confirmed, the claims move and notes disappear", async () => {
    const account = await seedAccount();
    const { phone, state } = await requestPhoneChange(account);
    const response = await validateMobile(account, state, lastCode(phone));
    expect(response.statusCode).toBe(200);
    expect(response.json.phone_number).toEqual({ value: phone, vrf: true });
    expect(response.json.notes).toBeUndefined();
    const stored = await services().accounts.get(account.sub);
    expect(stored?.phone_number).toEqual({ value: phone, verified: true });
    expect(stored?.pending_phone_number).toBeUndefined();
    expect(await services().accounts.claimOwner("phone_number", phone)).toBe(account.sub);
    expect(await services().accounts.claimOwner("phone_number", account.phone_number?.value as string)).toBeUndefined();
    // The state is spent.
    const again = await validateMobile(account, state, lastCode(phone));
    expect(again.statusCode).toBe(404);
    expect(again.json).toMatchObject({ type: "input_error", error: "unknown_state" });
  });

  it("when wrong codes are sent, it answers wrong_code with attempts_left, then no_attempts_left, and the right code no longer works", async () => {
    const account = await seedAccount();
    const { phone, state } = await requestPhoneChange(account);
    const right = lastCode(phone);
    const wrong = right === "000000" ? "111111" : "000000";
    expect((await validateMobile(account, state, wrong)).json).toEqual({ msg: "wrong_code", attempts_left: 2 });
    expect((await validateMobile(account, state, wrong)).json).toEqual({ msg: "wrong_code", attempts_left: 1 });
    const third = await validateMobile(account, state, wrong);
    expect(third.statusCode).toBe(400);
    expect(third.json).toEqual({ msg: "wrong_code", attempts_left: 0 });
    const exhausted = await validateMobile(account, state, right);
    expect(exhausted.statusCode).toBe(429);
    expect(exhausted.json).toEqual({ cause: "no_attempts_left" });
    expect((await services().accounts.get(account.sub))?.phone_number?.value).toBe(account.phone_number?.value);
  });

  it("when the right code races many wrong ones, it is accepted only while attempts remain", async () => {
    const account = await seedAccount();
    const { phone, state } = await requestPhoneChange(account);
    const right = lastCode(phone);
    const wrong = right === "000000" ? "111111" : "000000";
    const answers = await Promise.all([
      ...Array.from({ length: 8 }, () => validateMobile(account, state, wrong)),
      validateMobile(account, state, right),
    ]);
    const wrongCounted = answers.filter((a) => a.json.msg === "wrong_code").length;
    expect(wrongCounted).toBeLessThanOrEqual(3);
    const accepted = answers.filter((a) => a.statusCode === 200).length;
    const stored = await services().accounts.get(account.sub);
    expect(accepted).toBe(stored?.phone_number?.value === phone ? 1 : 0);
  });

  it("when the code has expired, it answers code_expired (410)", async () => {
    const { confirmContactChange } = await import("../../lib/domain/accounts/contact-confirmation");
    const account = await seedAccount();
    const { phone, state } = await requestPhoneChange(account);
    const later = Math.floor(Date.now() / 1000) + 601;
    const answer = await confirmContactChange(
      services().accounts,
      account.sub,
      "phone_number",
      state,
      lastCode(phone),
      undefined,
      later,
    );
    expect(answer).toEqual({ status: 410, body: { cause: "code_expired" } });
  });

  it("when the new phone belongs to another account, it answers as for a free one and refuses the right code (issue 21)", async () => {
    const owner = await seedAccount();
    const account = await seedAccount();
    const taken = owner.phone_number?.value as string;
    const { response, state } = await requestPhoneChange(account, taken);
    // The answer cannot tell whether the number is taken; only its holder gets the code.
    expect(response.statusCode).toBe(200);
    expect(response.json.notes).toMatchObject({ actions: [{ value: taken, attempts_left: 3 }] });
    const confirmed = await validateMobile(account, state, lastCode(taken));
    expect(confirmed.statusCode).toBe(400);
    expect(confirmed.json).toEqual({
      type: "input_error",
      error: "contact_use_violation",
      desc: "the value was taken by another account meanwhile",
      pos: "mobile",
    });
    expect(await services().accounts.claimOwner("phone_number", taken)).toBe(owner.sub);
    expect((await services().accounts.get(account.sub))?.phone_number?.value).toBe(account.phone_number?.value);
  });

  it("when codes to one phone are asked for again at once, the cool-down refuses with 429 too_many_codes", async () => {
    const account = await seedAccount();
    const { phone } = await requestPhoneChange(account);
    const again = await requestPhoneChange(account, phone);
    expect(again.response.statusCode).toBe(429);
    expect(again.response.json).toEqual({
      type: "input_error",
      error: "too_many_codes",
      desc: "no more codes can be sent to this contact now; try later",
      pos: "mobile",
    });
    expect(outbox(phone)).toHaveLength(1);
  });

  it("when a code to the same phone is sent again after wrong answers, it keeps the attempts left", async () => {
    const account = await seedAccount();
    const { phone, state } = await requestPhoneChange(account);
    const wrong = lastCode(phone) === "000000" ? "111111" : "000000";
    await validateMobile(account, state, wrong);
    // Past the cool-down: the address's counter as if its last code were older.
    await documentClient().send(
      new UpdateCommand({
        TableName: config().tableName,
        Key: keys.contactAddressLastCode("phone_number", phone),
        UpdateExpression: "SET lastSentAt = :long_ago",
        ExpressionAttributeValues: { ":long_ago": 0 },
      }),
    );
    const again = await requestPhoneChange(account, phone);
    expect(again.response.statusCode).toBe(200);
    expect(again.response.json.notes).toMatchObject({ actions: [{ attempts_left: 2 }] });
  });

  it("when another account takes the phone before the code comes back, the confirmation is refused", async () => {
    const account = await seedAccount();
    const { phone, state } = await requestPhoneChange(account);
    await seedAccount({ phone_number: { value: phone, verified: true } });
    const response = await validateMobile(account, state, lastCode(phone));
    expect(response.statusCode).toBe(400);
    expect(response.json).toMatchObject({ error: "contact_use_violation", pos: "mobile" });
    expect((await services().accounts.get(account.sub))?.phone_number?.value).toBe(account.phone_number?.value);
  });

  it("when a user token confirms another account's state, it answers 401 wrong_subject", async () => {
    const account = await seedAccount();
    const other = await seedAccount();
    const { phone, state } = await requestPhoneChange(account);
    const event = await pointed("events/users/validate-mobile.json", other, { state, code: lastCode(phone) });
    event.headers.authorization = await userBearer(other.sub, ["svc_api_user_chg"]);
    const response = await invoke("users", event);
    expect(response.statusCode).toBe(401);
    expect(response.json.desc).toBe("wrong_subject");
  });

  it("when user mode omits X-Forwarded-For or User-Agent, it answers 400 naming them", async () => {
    const account = await seedAccount();
    const event = await pointed("events/users/change-phone-with-code.json", account, { phone: newPhone() });
    delete event.headers["x-forwarded-for"];
    delete event.headers["user-agent"];
    const response = await invoke("users", event);
    expect(response.statusCode).toBe(400);
    expect((response.json.errors as Array<{ pos: string }>).map((e) => e.pos)).toEqual([
      "x-forwarded-for",
      "user-agent",
    ]);
  });

  it("when the state or body is malformed, it answers 400", async () => {
    const account = await seedAccount();
    const bad = await validateMobile(account, "not-a-state", "123456");
    expect(bad.statusCode).toBe(400);
    const event = await pointed("events/users/validate-mobile.json", account, { state: "x", code: "1" });
    event.pathParameters = { state: `${instanceIdOf(account.sub)}.${"a".repeat(24)}` };
    event.headers.authorization = await userBearer(account.sub, ["svc_api_user_chg"]);
    event.body = JSON.stringify({ cmd: "sms", value: "1" });
    const wrongCmd = await invoke("users", event);
    expect(wrongCmd.statusCode).toBe(400);
    expect((wrongCmd.json.errors as Array<{ pos: string }>)[0].pos).toBe("cmd");
  });
});

describe("e-mail change with confirmation", () => {
  it("when an application asks for it, the code goes by e-mail and validate_email confirms it", async () => {
    const account = await seedAccount();
    const email = `${uniqueId("new")}@example.com`;
    const started = await invoke(
      "users",
      await pointed("events/users/change-email-with-code.json", account, { email }),
    );
    expect(started.statusCode).toBe(200);
    const action = (started.json.notes as { actions: Array<{ state: string; action: string; attr: string }> })
      .actions[0];
    expect(action).toMatchObject({ action: "validate_mail", attr: "email", value: email });
    expect(outbox(email)[0]).toMatchObject({ channel: "email", subject: "Код подтверждения" });
    const done = await invoke(
      "users",
      await pointed("events/users/validate-email.json", account, { state: action.state, code: lastCode(email) }),
    );
    expect(done.statusCode).toBe(200);
    expect(done.json.email).toEqual({ value: email, vrf: true });
  });
});
