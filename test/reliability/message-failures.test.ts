import { SESClient, SendEmailCommand } from "@aws-sdk/client-ses";
import { PublishCommand, SNSClient } from "@aws-sdk/client-sns";
import { mockClient } from "aws-sdk-client-mock";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { setEnvDefaults } from "../../lib/config";
import { verifyPassword } from "../../lib/domain/credentials/password-hash";
import { keys } from "../../lib/store/keys";
import { invoke, sampleEvent, seedAccount, uniqueId } from "../support/fixtures";
import { prepareRequest, request } from "../support/requests";
import { storedItem, storedItems } from "../support/stored";
import { expectNothingStored, tableSnapshot } from "../support/table-snapshot";
import { startTally } from "../support/tally";

/**
 * SNS (SMS) and SES (e-mail) failing at the SDK boundary (aws-sdk-client-mock), with the
 * courier SVC_MESSAGES=aws uses in production: every flow that sends a code or a password
 * answers 502 message_not_sent in its version's shape and leaves the table as it was;
 * the password-changed notice, which follows a committed change, fails without undoing it.
 */

// The production courier (SNS and SES senders) in place of the outbox the suite's setup chose:
// lib/messaging.ts builds it on first use, after this.
process.env.SVC_MESSAGES = "aws";
setEnvDefaults({});

const tally = startTally(import.meta.filename);
const sns = mockClient(SNSClient);
const ses = mockClient(SESClient);
const PASSWORD = "Message-Failure-Password-1";

function failSms() {
  sns.on(PublishCommand).rejects(Object.assign(new Error("Rate exceeded"), { name: "ThrottlingException" }));
  tally.fault();
}
function failMail() {
  ses
    .on(SendEmailCommand)
    .rejects(Object.assign(new Error("Email address is not verified"), { name: "MessageRejected" }));
  tally.fault();
}

afterEach(() => {
  sns.reset();
  ses.reset();
});

beforeAll(async () => {
  // The sample events act on sample-user (u1.c2FtcGxlLXVzZXI is its instanceId).
  await seedAccount({ sub: "sample-user" }, PASSWORD);
});

/** Runs a request and checks the 502 body and that nothing was stored. */
async function expectNotSent(
  send: () => Promise<{ statusCode: number; json: Record<string, unknown>; body: string }>,
  body: unknown,
) {
  const before = await tableSnapshot();
  const result = await send();
  tally.answered(result.statusCode);
  await tally.invariant(async () => {
    expect(result.statusCode, result.body).toBe(502);
    expect(result.json).toEqual(body);
    expect(result.body).not.toMatch(/Rate exceeded|not verified|ThrottlingException|MessageRejected/);
    expectNothingStored(before, await tableSnapshot(), "after the failed send");
  });
}

function contacts() {
  const id = uniqueId("");
  return { sub: `msg-${id}`, email: `${id}@example.com`, phone: `7${String(Date.now()).slice(-10)}` };
}

describe("SMS and e-mail failures", () => {
  it("when SNS fails at registration, it answers 502 listing phone_number and stores nothing", async () => {
    failSms();
    const values = contacts();
    await expectNotSent(
      async () => invoke("registration", await sampleEvent("events/registration/register-with-codes.json", values)),
      { errors: [{ errMsg: expect.stringMatching(/SMS/i), field: "phone_number" }], context: "" },
    );
  });

  it("when SES fails at registration after the SMS went out, it answers 502 listing email and stores nothing", async () => {
    sns.on(PublishCommand).resolves({ MessageId: "sms-1" });
    failMail();
    const values = contacts();
    await expectNotSent(
      async () => invoke("registration", await sampleEvent("events/registration/register-with-codes.json", values)),
      { errors: [{ errMsg: expect.stringMatching(/e-mail/i), field: "email" }], context: "" },
    );
  });

  it("when SNS fails on a code resend, it answers 502 and the pending registration keeps its code and count", async () => {
    sns.on(PublishCommand).resolves({ MessageId: "sms-1" });
    ses.on(SendEmailCommand).resolves({ MessageId: "mail-1" });
    const started = await invoke(
      "registration",
      await sampleEvent("events/registration/register-with-codes.json", contacts()),
    );
    tally.answered(started.statusCode);
    expect(started.statusCode, started.body).toBe(200);
    failSms();
    await expectNotSent(
      async () =>
        invoke(
          "registration",
          await sampleEvent("events/registration/resend-sms-code.json", { context: started.json.context as string }),
        ),
      { errors: [{ errMsg: expect.stringMatching(/SMS/i), field: "phone_number" }], context: "" },
    );
  });

  it("when SES fails on an e-mail change with a code, it answers 502 and the account is unchanged", async () => {
    failMail();
    await expectNotSent(
      () =>
        request("users", "events/users/change-email-with-code.json", {
          values: { email: `${uniqueId("new")}@example.com` },
        }),
      {
        type: "process_error",
        error: "message_not_sent",
        desc: expect.stringContaining("nothing was changed"),
        pos: "email",
        params: { requestId: expect.any(String) },
      },
    );
  });

  it("when SNS fails on a phone change with a code, it answers 502 and the account is unchanged", async () => {
    failSms();
    // Prepared first: its user token opens a session, which is not the change's doing.
    const event = await prepareRequest("events/users/change-phone-with-code.json", {
      values: { phone: contacts().phone },
    });
    await expectNotSent(() => invoke("users", event), {
      type: "process_error",
      error: "message_not_sent",
      desc: expect.stringContaining("nothing was changed"),
      pos: "mobile",
      params: { requestId: expect.any(String) },
    });
  });

  it("when SNS fails to deliver a generated password, it answers 502 and the old password still works", async () => {
    failSms();
    await expectNotSent(() => request("passwords", "events/passwords/change-system-generated-sms.json"), {
      type: "process_error",
      error: "message_not_sent",
      desc: "the SMS with the password could not be sent; the password was not changed",
      pos: "sendPswdToAttr",
      params: { requestId: expect.any(String) },
    });
    const credential = (await storedItem(keys.passwordCredential("sample-user"))) as never;
    await tally.invariant(async () => expect(await verifyPassword(PASSWORD, credential)).toBe(true));
  });

  it("when SES fails to send the password-changed notice, the change stands whole: new password set, event recorded", async () => {
    failMail();
    const next = "Brand-New-Password-After-Notice-7";
    const result = await request("passwords", "events/passwords/change-user-mode.json", {
      values: { current: PASSWORD, newPassword: next },
    });
    tally.answered(result.statusCode);
    await tally.invariant(async () => {
      expect(result.statusCode, result.body).toBeLessThan(300);
      expect(ses.commandCalls(SendEmailCommand)).toHaveLength(1);
      const credential = (await storedItem(keys.passwordCredential("sample-user"))) as never;
      expect(await verifyPassword(next, credential)).toBe(true);
      const events = await storedItems("sample-user", "EVENT#");
      expect(events.filter((e) => e.type === "password_change")).toHaveLength(1);
    });
  });
});
