import { SESClient, SendEmailCommand } from "@aws-sdk/client-ses";
import { PublishCommand, SNSClient } from "@aws-sdk/client-sns";
import { GetCommand } from "@aws-sdk/lib-dynamodb";
import { mockClient } from "aws-sdk-client-mock";
import { afterEach, describe, expect, it } from "vitest";
import { config } from "../../../../lib/config";
import { registrationDeps, services } from "../../../../lib/container";
import { documentClient } from "../../../../lib/document-client";
import { confirmRegistration } from "../../../../lib/domain/registration/confirm";
import { type RegistrationBody, register } from "../../../../lib/domain/registration/register";
import { createCourier } from "../../../../lib/notify/courier";
import { createSesSender } from "../../../../lib/notify/ses-sender";
import { createSnsSender } from "../../../../lib/notify/sns-sender";
import { keys } from "../../../../lib/store/keys";
import { uniqueId } from "../../../support/fixtures";
import { lastCode, outbox } from "../../../support/outbox";

const caller = { clientId: "app", language: "ru" as const, ip: "203.0.113.7", userAgent: "test" };
const sns = mockClient(SNSClient);
const ses = mockClient(SESClient);
afterEach(() => {
  sns.reset();
  ses.reset();
});

function body(
  overrides: Partial<RegistrationBody["user"]["attrs"]> = {},
  extra: Partial<RegistrationBody> = {},
): RegistrationBody {
  const id = uniqueId("");
  return {
    user: {
      attrs: {
        sub: `flow-${id}`,
        given_name: "Anna",
        phone_number: { value: `7${String(Math.floor(Math.random() * 1e10)).padStart(10, "0")}`, verified: false },
        email: { value: `${id}@example.com`, verified: false },
        ...overrides,
      },
    },
    ...extra,
  };
}

async function pendingItem(context: string) {
  const { Item } = await documentClient().send(
    new GetCommand({ TableName: config().tableName, Key: keys.registration(context), ConsistentRead: true }),
  );
  return Item;
}

function awsDeps() {
  return {
    ...registrationDeps(),
    courier: createCourier({
      sms: createSnsSender(new SNSClient({ region: "eu-west-1" })),
      email: createSesSender(new SESClient({ region: "eu-west-1" }), "no-reply@example.com"),
    }),
  };
}

describe("registration messages", () => {
  it("when no language is asked for, codes go out in Russian (defaultLanguage)", async () => {
    const input = body();
    await register(input, caller, registrationDeps());
    const [sms] = outbox(input.user.attrs.phone_number?.value);
    expect(sms.lang).toBe("ru");
    expect(sms.text).toMatch(/^Ваш код для завершения регистрации: \d{6}\./);
  });

  it("when sending through AWS, the SMS is an SNS Publish to the E.164 number and the e-mail an SES SendEmail", async () => {
    sns.on(PublishCommand).resolves({ MessageId: "m1" });
    ses.on(SendEmailCommand).resolves({ MessageId: "m2" });
    const input = body();
    const answer = await register(input, { ...caller, language: "en" }, awsDeps());
    const publish = sns.commandCalls(PublishCommand)[0].args[0].input;
    expect(publish.PhoneNumber).toBe(`+${input.user.attrs.phone_number?.value}`);
    expect(publish.Message).toMatch(/^Your code to finish your registration: \d{6}\./);
    expect(publish.MessageAttributes?.["AWS.SNS.SMS.SMSType"]?.StringValue).toBe("Transactional");
    const mail = ses.commandCalls(SendEmailCommand)[0].args[0].input;
    expect(mail.Destination?.ToAddresses).toEqual([input.user.attrs.email?.value]);
    expect(mail.Message?.Subject?.Data).toBe("Your confirmation code");
    expect(mail.Source).toBe("no-reply@example.com");
    expect(await pendingItem(answer.context)).toBeDefined();
  });

  it("when SNS refuses the SMS, the caller gets 502 and nothing is stored", async () => {
    sns.on(PublishCommand).rejects(Object.assign(new Error("Throttled"), { name: "ThrottlingException" }));
    const input = body();
    await expect(register(input, caller, awsDeps())).rejects.toMatchObject({
      status: 502,
      error: "message_not_sent",
      details: { pos: "phone_number" },
    });
    expect(await services().accounts.get(input.user.attrs.sub as string)).toBeUndefined();
    expect(ses.commandCalls(SendEmailCommand)).toHaveLength(0);
  });

  it("when SES refuses the e-mail after the SMS went out, nothing is stored either", async () => {
    sns.on(PublishCommand).resolves({ MessageId: "m1" });
    ses.on(SendEmailCommand).rejects(new Error("MessageRejected"));
    const input = body();
    const deps = { ...awsDeps(), settings: { ...config().settings, registration: { createBeforeConfirm: true } } };
    await expect(register(input, caller, deps)).rejects.toMatchObject({ status: 502, details: { pos: "email" } });
    expect(await services().accounts.get(input.user.attrs.sub as string)).toBeUndefined();
  });
});

describe("registration.createBeforeConfirm", () => {
  const deps = () => ({
    ...registrationDeps(),
    settings: { ...config().settings, registration: { createBeforeConfirm: true } },
  });

  it("when on, the account exists at once with unconfirmed contacts, and each code confirms one", async () => {
    const input = body();
    const sub = input.user.attrs.sub as string;
    const phone = input.user.attrs.phone_number?.value as string;
    const email = input.user.attrs.email?.value as string;
    const started = await register(input, caller, deps());
    expect(started).toMatchObject({ subject: sub, instanceId: expect.any(String), cookies: [expect.any(Object)] });
    expect(started.instructions.map((i) => i.name)).toEqual(["mbl-enter-code", "eml-enter-code"]);
    expect(await services().accounts.get(sub)).toMatchObject({
      phone_number: { value: phone, verified: false },
      email: { value: email, verified: false },
    });

    const sms = await confirmRegistration(started.context, { sms_code: lastCode(phone) }, caller, deps());
    expect(sms.instructions.map((i) => i.name)).toEqual(["eml-enter-code"]);
    expect((await services().accounts.get(sub))?.phone_number?.verified).toBe(true);

    const mail = await confirmRegistration(started.context, { email_code: lastCode(email) }, caller, deps());
    expect(mail).toMatchObject({ subject: sub, instructions: [] });
    expect((await services().accounts.get(sub))?.email?.verified).toBe(true);
    expect(await pendingItem(started.context)).toBeUndefined();
  });
});

describe("code expiry", () => {
  it("when the code is older than codes.ttlSeconds, it answers mbl-expired and a resend gives a fresh code", async () => {
    const input = body({ email: undefined });
    const phone = input.user.attrs.phone_number?.value as string;
    const started = await register(input, caller, registrationDeps());
    const later = {
      ...registrationDeps(),
      now: () => Math.floor(Date.now() / 1000) + config().settings.codes.ttlSeconds + 1,
    };
    const expired = await confirmRegistration(started.context, { sms_code: lastCode(phone) }, caller, later);
    expect(expired.instructions).toEqual([{ mobile: phone, name: "mbl-expired" }]);
    const resent = await confirmRegistration(started.context, { sms_code_resend: "1" }, caller, later);
    expect(resent.instructions[0]).toMatchObject({ name: "mbl-enter-code", attemts: 3 });
    const done = await confirmRegistration(started.context, { sms_code: lastCode(phone) }, caller, later);
    expect(done).toMatchObject({ subject: input.user.attrs.sub, instructions: [] });
  });
});

describe("bindDynClient", () => {
  it("when a released id is given, the new account is bound to it; a second binding is refused", async () => {
    const [clientId] = await services().dynamicClients.release("mobile", 1);
    expect(clientId).toMatch(/^dyn~mobile~[A-Za-z0-9_-]+$/);
    const first = body(
      { phone_number: undefined, email: { value: `${uniqueId("d")}@example.com`, verified: true } },
      {
        actions: [{ type: "bindDynClient", client_id: clientId }],
      },
    );
    const created = await register(first, caller, registrationDeps());
    const { Item } = await documentClient().send(
      new GetCommand({ TableName: config().tableName, Key: keys.dynamicClient(clientId), ConsistentRead: true }),
    );
    expect(Item).toMatchObject({ status: "bound", sub: created.subject });

    const second = body(
      { phone_number: undefined, email: { value: `${uniqueId("d")}@example.com`, verified: true } },
      {
        actions: [{ type: "bindDynClient", client_id: clientId }],
      },
    );
    await expect(register(second, caller, registrationDeps())).rejects.toMatchObject({
      status: 400,
      details: { pos: "actions" },
      desc: "the dynamic client_id is unknown or already bound",
    });
    // The refused registration left no account behind.
    expect(await services().accounts.get(second.user.attrs.sub as string)).toBeUndefined();
  });

  it("when the id was never released and a code must be sent, it is refused before any code goes out", async () => {
    const input = body({}, { actions: [{ type: "bindDynClient", client_id: "dyn~mobile~never" }] });
    await expect(register(input, caller, registrationDeps())).rejects.toMatchObject({
      desc: "the dynamic client_id is unknown",
    });
    expect(outbox(input.user.attrs.phone_number?.value)).toEqual([]);
  });
});
