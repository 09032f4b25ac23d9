import { beforeEach, describe, expect, it, vi } from "vitest";
import { uniqueId } from "../support/fixtures";
import { forgetHookCalls, hookCalls, registerWithEmail, scriptHook, sleep, useScriptedHooks } from "../support/hooks";
import { linesOf, useLogLevel } from "../support/log-lines";
import { lastCode, outbox } from "../support/outbox";

/** customMessage (docs/hooks.md): the registration code e-mail, replaced or kept, read from the outbox. */

beforeEach(() => {
  useScriptedHooks({ customMessage: 300 });
  forgetHookCalls();
});

async function codeMail() {
  const email = `${uniqueId("message")}@example.com`;
  const { response } = await registerWithEmail({ value: email, verified: false });
  expect(response.statusCode).toBe(200);
  const [mail] = outbox(email);
  return { mail, code: lastCode(email), email };
}

describe("customMessage hook", () => {
  it("when the hook answers a new subject and text with the placeholder, the message carries them and the real code; the hook never saw the code", async () => {
    scriptHook("customMessage", () => ({ subject: "Your ACME code", text: "ACME: enter {####} to confirm." }));
    const { mail, code, email } = await codeMail();
    expect(mail).toMatchObject({
      channel: "email",
      subject: "Your ACME code",
      text: `ACME: enter ${code} to confirm.`,
    });
    const [input] = hookCalls("customMessage");
    expect(input).toMatchObject({
      version: "1",
      hook: "customMessage",
      channel: "email",
      message: "confirmation-code",
      to: email,
      placeholder: "{####}",
    });
    expect(String(input.text)).toContain("{####}");
    expect(JSON.stringify(input)).not.toContain(code);
  });

  describe("when the hook's answer cannot be used", () => {
    useLogLevel("warn");

    it("when the replacement drops the placeholder, the template's text goes out and the failure is logged", async () => {
      const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
      scriptHook("customMessage", () => ({ text: "ACME: welcome aboard!" }));
      const { mail, code } = await codeMail();
      expect(mail.text).toContain(code);
      expect(mail.text).not.toContain("ACME");
      expect(linesOf(stderr).some((l) => String(l.message).includes("dropped the code placeholder"))).toBe(true);
    });
  });

  it.each([
    ["times out", () => sleep(1000).then(() => ({ text: "late {####}" }))],
    ["answers outside its contract", () => ({ body: "{####}" })],
    ["throws", () => Promise.reject(new Error("templates down"))],
    ["answers nothing to change", () => ({})],
  ])("when the hook %s, the template's own message goes out and the registration goes on", async (_what, script) => {
    scriptHook("customMessage", script);
    const { mail, code } = await codeMail();
    expect(mail.text).toContain(code);
    expect(mail.text).not.toContain("{####}");
  });
});
