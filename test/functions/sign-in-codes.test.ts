import { UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { config } from "../../lib/config";
import { services } from "../../lib/container";
import { documentClient } from "../../lib/document-client";
import { keys } from "../../lib/store/keys";
import { createClient, seedAccount, systemBearer } from "../support/fixtures";
import { passwordLogin } from "../support/login";
import { useSettings } from "../support/oauth-provider";
import { lastCode, outbox } from "../support/outbox";
import { request } from "../support/requests";
import { storedItem, storedItems } from "../support/stored";

const PASSWORD = "correct horse battery staple";

async function setup(overrides: Parameters<typeof seedAccount>[0] = {}) {
  const account = await seedAccount({ requiredFactor: 2, ...overrides }, PASSWORD);
  const client = await createClient(["svc_api_user"]);
  const login = (form: Record<string, string>) =>
    passwordLogin(client, { scope: "svc_api_user", username: account.sub, password: PASSWORD, ...form });
  return { account, login, email: account.email?.value as string };
}

function masked(email: string): string {
  return `${email[0]}***${email.slice(email.indexOf("@"))}`;
}

describe("sign-in codes by e-mail or SMS, switched on (secondFactor.emailCodes, smsCodes)", () => {
  beforeEach(() => useSettings({ secondFactor: { emailCodes: true, smsCodes: true } }));
  afterEach(() => useSettings({}));

  it("when otp_channel=email is sent with the right password, a code goes to the e-mail and signs in once", async () => {
    const { account, login, email } = await setup();
    const sent = await login({ otp_channel: "email" });
    expect(sent.statusCode).toBe(400);
    expect(sent.json).toEqual({
      error: "invalid_grant",
      error_description: `a code was sent by e-mail to ${masked(email)}: send it as otp`,
    });
    const code = lastCode(email);
    expect(outbox(email).at(-1)).toMatchObject({ channel: "email", subject: "Код для входа" });
    const stored = await storedItem(keys.loginCode(account.sub));
    expect(stored).toMatchObject({ entity: "login-code", schemaVersion: 1, channel: "email", attemptsLeft: 3 });
    expect(JSON.stringify(stored)).not.toContain(code);

    const ok = await login({ otp: code });
    expect(ok.statusCode).toBe(200);
    expect(await storedItem(keys.loginCode(account.sub))).toBeUndefined();
    expect((await storedItems(account.sub, "SESSION#")).map((s) => s.amr)).toEqual([["pwd", "otp", "mfa"]]);
    const events = await services().events.list(account.sub, 0, Date.now() + 1000, 50);
    expect(events.find((e) => e.type === "login" && e.result === "ok")?.prms).toMatchObject({ factor: "email_code" });
    expect(events.map((e) => e.result)).toContain("otp_sent");
    expect(JSON.stringify(events)).not.toContain(code);

    expect((await login({ otp: code })).json).toEqual({
      error: "invalid_grant",
      error_description: "the otp is not valid",
    });
  });

  it("when the code goes by SMS, the session's amr says sms", async () => {
    const { account, login } = await setup();
    const phone = account.phone_number?.value as string;
    const sent = await login({ otp_channel: "sms" });
    expect(sent.json.error_description).toBe(`a code was sent by SMS to ***${phone.slice(-4)}: send it as otp`);
    expect((await login({ otp: lastCode(phone) })).statusCode).toBe(200);
    expect((await storedItems(account.sub, "SESSION#")).map((s) => s.amr)).toEqual([["pwd", "sms", "mfa"]]);
  });

  it("when the password is wrong, no code is sent", async () => {
    const { account, email } = await setup();
    const client = await createClient(["svc_api_user"]);
    const before = outbox(email).length;
    const response = await passwordLogin(client, {
      scope: "svc_api_user",
      username: account.sub,
      password: "wrong password",
      otp_channel: "email",
    });
    expect(response.json.error_description).toBe("invalid username or password");
    expect(outbox(email).length).toBe(before);
    expect(await storedItem(keys.loginCode(account.sub))).toBeUndefined();
  });

  it("when wrong codes use up the attempts, the right code is refused too", async () => {
    const { account, login, email } = await setup();
    await login({ otp_channel: "email" });
    const code = lastCode(email);
    const wrong = code === "000000" ? "111111" : "000000";
    for (let i = 0; i < config().settings.codes.attempts; i++) {
      expect((await login({ otp: wrong })).json.error_description).toBe("the otp is not valid");
    }
    expect((await storedItem(keys.loginCode(account.sub)))?.attemptsLeft).toBe(0);
    expect((await login({ otp: code })).json.error_description).toBe("the otp is not valid");
  });

  it("when the code has expired, it is refused", async () => {
    const { account, login, email } = await setup();
    await login({ otp_channel: "email" });
    await documentClient().send(
      new UpdateCommand({
        TableName: config().tableName,
        Key: keys.loginCode(account.sub),
        UpdateExpression: "SET #exp = :past",
        ExpressionAttributeNames: { "#exp": "exp" },
        ExpressionAttributeValues: { ":past": Math.floor(Date.now() / 1000) - 1 },
      }),
    );
    expect((await login({ otp: lastCode(email) })).json.error_description).toBe("the otp is not valid");
  });

  it("when codes are asked again within the cool-down, the second is refused before anything is sent", async () => {
    const { login, email } = await setup();
    await login({ otp_channel: "email" });
    const sent = outbox(email).length;
    const again = await login({ otp_channel: "email" });
    expect(again.json).toEqual({
      error: "invalid_grant",
      error_description: "no more codes can be sent now; try later",
    });
    expect(outbox(email).length).toBe(sent);
  });

  it("when racing requests ask for codes, the cool-down holds: one code leaves", async () => {
    const { login, email } = await setup();
    const answers = await Promise.all(Array.from({ length: 6 }, () => login({ otp_channel: "email" })));
    const sentAnswers = answers.filter((a) => String(a.json.error_description).startsWith("a code was sent"));
    expect(sentAnswers).toHaveLength(1);
    expect(outbox(email)).toHaveLength(1);
  });

  it("when the account was sent its hourly cap of codes, the next is refused before anything is sent", async () => {
    const { account, login, email } = await setup();
    await documentClient().send(
      new UpdateCommand({
        TableName: config().tableName,
        Key: keys.contactCodesSent(account.sub, Math.floor(Date.now() / 1000 / 3600)),
        UpdateExpression: "SET #count = :cap",
        ExpressionAttributeNames: { "#count": "count" },
        ExpressionAttributeValues: { ":cap": 5 },
      }),
    );
    expect((await login({ otp_channel: "email" })).json.error_description).toBe(
      "no more codes can be sent now; try later",
    );
    expect(outbox(email)).toEqual([]);
    expect(await storedItem(keys.loginCode(account.sub))).toBeUndefined();
  });

  it("when the contact is not confirmed, the channel is refused and it counts as no method", async () => {
    const { login } = await setup({ email: { value: "unconfirmed@example.com", verified: false } });
    expect((await login({ otp_channel: "email" })).json).toEqual({
      error: "invalid_grant",
      error_description: "codes by e-mail are not available for this account",
    });
    const bare = await seedAccount({
      email: { value: "unconfirmed2@example.com", verified: false },
      phone_number: undefined,
    });
    const modes = await request("security", "events/security/auth-change.json", {
      params: { subjectId: bare.sub },
      body: { requiredFactor: 2 },
      authorization: await systemBearer(["svc_api_sys_usec_chg"]),
    });
    expect(modes.json).toMatchObject({ error: "has_not_sf_methods" });
  });

  it("when a confirmed e-mail is on, it counts as a second-factor method for requiredFactor 2", async () => {
    const account = await seedAccount({ phone_number: undefined });
    const modes = await request("security", "events/security/auth-change.json", {
      params: { subjectId: account.sub },
      body: { requiredFactor: 2 },
      authorization: await systemBearer(["svc_api_sys_usec_chg"]),
    });
    expect(modes.statusCode).toBe(200);
    expect(modes.json).toMatchObject({ requiredFactor: 2 });
  });
});

describe("sign-in codes, off by default", () => {
  it("when otp_channel is sent while no channel is on, it is refused saying so and nothing is sent", async () => {
    const { account, login, email } = await setup();
    const response = await login({ otp_channel: "email" });
    expect(response.json).toEqual({
      error: "invalid_grant",
      error_description: "codes by e-mail are not available for this account",
    });
    expect(outbox(email)).toEqual([]);
    expect(await storedItem(keys.loginCode(account.sub))).toBeUndefined();
  });

  it("when otp_channel has another value, it answers invalid_request", async () => {
    const { login } = await setup();
    const response = await login({ otp_channel: "pigeon" });
    expect(response.statusCode).toBe(400);
    expect(response.json.error).toBe("invalid_request");
  });

  it("when a confirmed e-mail is the only thing, requiredFactor 2 is refused (has_not_sf_methods)", async () => {
    const account = await seedAccount();
    const modes = await request("security", "events/security/auth-change.json", {
      params: { subjectId: account.sub },
      body: { requiredFactor: 2 },
      authorization: await systemBearer(["svc_api_sys_usec_chg"]),
    });
    expect(modes.statusCode).toBe(400);
    expect(modes.json).toMatchObject({ error: "has_not_sf_methods" });
  });
});
