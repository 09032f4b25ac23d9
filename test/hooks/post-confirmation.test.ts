import { beforeEach, describe, expect, it } from "vitest";
import { services } from "../../lib/container";
import { uniqueId } from "../support/fixtures";
import {
  eventually,
  forgetHookCalls,
  hookCalls,
  registerWithEmail,
  scriptHook,
  sleep,
  useScriptedHooks,
} from "../support/hooks";
import { lastCode } from "../support/outbox";
import { confirmRegistration } from "../support/requests";

/** postConfirmation (docs/hooks.md): told once a registration is confirmed; never undoes the account. */

beforeEach(() => {
  useScriptedHooks({ postConfirmation: 300 });
  forgetHookCalls();
  scriptHook("postConfirmation", () => ({}));
});

async function registeredAndConfirmed() {
  const email = `${uniqueId("confirm")}@example.com`;
  const { response, sub } = await registerWithEmail({ value: email, verified: false });
  expect(response.statusCode).toBe(200);
  expect(hookCalls("postConfirmation")).toEqual([]);
  const started = Date.now();
  const confirmed = await confirmRegistration(response.json.context as string, { email_code: lastCode(email) });
  return { confirmed, sub, email, took: Date.now() - started };
}

describe("postConfirmation hook", () => {
  it("when the last code confirms the registration, the hook is told of the account and its confirmed contacts", async () => {
    const { confirmed, sub, email } = await registeredAndConfirmed();
    expect(confirmed.json).toMatchObject({ subject: sub, instructions: [] });
    await eventually(() => hookCalls("postConfirmation").length === 1);
    expect(hookCalls("postConfirmation")[0]).toEqual({
      version: "1",
      hook: "postConfirmation",
      clientId: expect.any(String),
      sub,
      email: { value: email, verified: true },
    });
  });

  it("when every contact is confirmed at once, the hook is told at the registration", async () => {
    const email = `${uniqueId("at-once")}@example.com`;
    const { response, sub } = await registerWithEmail({ value: email, verified: true });
    expect(response.json.subject).toBe(sub);
    await eventually(() => hookCalls("postConfirmation").length === 1);
    expect(hookCalls("postConfirmation")[0]).toMatchObject({ sub });
  });

  it("when the hook fails, the account stays confirmed and the hook is retried", async () => {
    scriptHook("postConfirmation", () => Promise.reject(new Error("CRM down")));
    const { confirmed, sub, email } = await registeredAndConfirmed();
    expect(confirmed.statusCode).toBe(200);
    expect(await services().accounts.get(sub)).toMatchObject({ email: { value: email, verified: true } });
    await eventually(() => hookCalls("postConfirmation").length === 3, 10_000);
    expect(await services().accounts.get(sub)).toBeDefined();
  });

  it("when the hook is slow or answers anything, the confirmation does not wait and stands", async () => {
    scriptHook("postConfirmation", () => sleep(2000).then(() => "not even an object"));
    const { confirmed, sub, took } = await registeredAndConfirmed();
    expect(confirmed.statusCode).toBe(200);
    expect(took).toBeLessThan(1500);
    expect(await services().accounts.get(sub)).toBeDefined();
  });
});
