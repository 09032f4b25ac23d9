import { beforeEach, describe, expect, it } from "vitest";
import { services } from "../../lib/container";
import { uniqueId } from "../support/fixtures";
import { forgetHookCalls, hookCalls, registerWithEmail, scriptHook, sleep, useScriptedHooks } from "../support/hooks";
import { outbox } from "../support/outbox";
import { expectNothingStored, tableSnapshot } from "../support/table-snapshot";

/** preRegistration (docs/hooks.md): a real module target, the registration route, the table read back. */

beforeEach(() => {
  useScriptedHooks({ preRegistration: 300 });
  forgetHookCalls();
});

describe("preRegistration hook", () => {
  it("when the hook allows and vouches for the e-mail, the account is created with it confirmed and no code is sent", async () => {
    scriptHook("preRegistration", () => ({ action: "allow", confirm: { email: true } }));
    const email = `${uniqueId("vouched")}@example.com`;
    const { response, sub } = await registerWithEmail({ value: email, verified: false });
    expect(response.statusCode).toBe(200);
    expect(response.json).toMatchObject({ subject: sub, instructions: [] });
    expect(await services().accounts.get(sub)).toMatchObject({ email: { value: email, verified: true } });
    expect(outbox(email)).toEqual([]);
    const [input] = hookCalls("preRegistration");
    expect(input).toMatchObject({
      version: "1",
      hook: "preRegistration",
      language: "ru",
      user: { sub, family_name: "Orlov", email: { value: email, verified: false } },
    });
    expect(JSON.stringify(input)).not.toContain("passphrase");
  });

  it("when the hook allows without vouching, the e-mail still gets its code", async () => {
    scriptHook("preRegistration", () => ({ action: "allow" }));
    const email = `${uniqueId("plain")}@example.com`;
    const { response } = await registerWithEmail({ value: email, verified: false });
    expect(response.statusCode).toBe(200);
    expect(response.json.subject).toBeUndefined();
    expect(outbox(email)).toHaveLength(1);
  });

  it("when the hook refuses, the answer carries its message in the registration error shape and nothing is stored", async () => {
    scriptHook("preRegistration", () => ({ action: "deny", message: "Registrations from this domain are closed" }));
    const before = await tableSnapshot();
    const email = `${uniqueId("refused")}@blocked.example`;
    const { response, sub } = await registerWithEmail({ value: email, verified: false });
    expect(response.statusCode).toBe(403);
    expect(response.json).toEqual({
      errors: [{ errMsg: "Registrations from this domain are closed", field: "user" }],
      context: "",
    });
    expectNothingStored(before, await tableSnapshot(), "refused registration");
    expect(await services().accounts.get(sub)).toBeUndefined();
    expect(outbox(email)).toEqual([]);
  });

  it.each([
    ["times out", async () => sleep(1000).then(() => ({ action: "allow" }))],
    ["answers outside its contract", () => ({ action: "allow", confirm: { email: "yes" } })],
    ["throws", () => Promise.reject(new Error("old system down"))],
  ])("when the hook %s, the registration fails closed with hook_failed and stores nothing", async (_what, script) => {
    scriptHook("preRegistration", script);
    const before = await tableSnapshot();
    const email = `${uniqueId("failed")}@example.com`;
    const { response, sub } = await registerWithEmail({ value: email, verified: true });
    expect(response.statusCode).toBe(503);
    expect(response.json).toEqual({
      errors: [{ errMsg: expect.stringContaining("nothing was registered"), field: "user" }],
      context: "",
    });
    expectNothingStored(before, await tableSnapshot(), "registration with a failed hook");
    expect(await services().accounts.get(sub)).toBeUndefined();
  });
});
