import { beforeEach, describe, expect, it } from "vitest";
import { services } from "../../lib/container";
import { loginSnapshot } from "../../lib/domain/login/verify-user-password";
import { seedAccount, uniqueId, userBearer } from "../support/fixtures";
import { forgetHookCalls, hookCalls, scriptHook, sleep, useScriptedHooks } from "../support/hooks";
import { PASSWORD, useHostedSignIn } from "../support/hosted-sign-in";
import { storedItems } from "../support/stored";

/** Hooks on the hosted pages, in a real chromium: refusals and failures shown in role="alert". */

const { issuer, browser, relyingParty, startAuthorization, fillSignInForm, alertText, backAtClient } =
  await useHostedSignIn();

beforeEach(() => {
  useScriptedHooks({ preSignIn: 500, preRegistration: 500, userMigration: 500 });
  forgetHookCalls();
  scriptHook("preSignIn", () => ({ action: "allow" }));
  scriptHook("preRegistration", () => ({ action: "allow" }));
  scriptHook("userMigration", () => ({ action: "unknown" }));
});

async function signInPage() {
  const { config, redirectUri } = await relyingParty();
  return (await startAuthorization(config, redirectUri)).url;
}

describe("hooks on the hosted sign-in page", () => {
  it("when preSignIn refuses, the page shows its message and no session is opened", async () => {
    scriptHook("preSignIn", () => ({ action: "deny", message: "Sign-in is closed for maintenance" }));
    const account = await seedAccount({}, PASSWORD);
    const { context, page } = await fillSignInForm(await signInPage(), account.sub);
    expect(await alertText(page)).toBe("Sign-in is closed for maintenance");
    expect(await storedItems(account.sub, "SESSION#")).toEqual([]);
    await context.close();
  });

  it("when preSignIn refuses a QR sign-in, the desktop shows its message, no session opens and the code stays unspent", async () => {
    scriptHook("preSignIn", (input) =>
      input.method === "qr" ? { action: "deny", message: "Phones may not sign in today" } : { action: "allow" },
    );
    const account = await seedAccount({}, PASSWORD);
    const context = await browser().newContext({ locale: "en-US" });
    const page = await context.newPage();
    await page.goto((await signInPage()).toString());
    await page.getByRole("link", { name: "Sign in with your phone" }).click();
    const code = ((await page.locator("code").textContent()) ?? "").trim();
    const confirmed = await fetch(`${issuer}/api/v3/auth/qr/${code}/confirm`, {
      method: "POST",
      headers: {
        authorization: await userBearer(account.sub, ["svc_qr_auth"]),
        "x-forwarded-for": "198.51.100.7",
        "user-agent": "PhoneApp/1.0",
      },
    });
    expect(confirmed.status).toBe(204);
    // The phone's own token has its session; the desktop must not get another.
    const sessions = await storedItems(account.sub, "SESSION#");
    await page.getByRole("button", { name: "Continue" }).click();
    expect(await alertText(page)).toBe("Phones may not sign in today");
    expect(hookCalls("preSignIn")).toMatchObject([{ sub: account.sub, method: "qr" }]);
    expect(await storedItems(account.sub, "SESSION#")).toEqual(sessions);
    expect((await context.cookies()).some((c) => c.name === "svc_sso")).toBe(false);
    expect((await services().qrLogins.get(code, Math.floor(Date.now() / 1000)))?.status).toBe("confirmed");
    // Recorded in the account's history as a password sign-in the hook refused is.
    const logins = (await storedItems(account.sub, "EVENT#")) as Array<Record<string, unknown>>;
    expect(logins.filter((e) => e.type === "login" && e.result === "sign_in_refused")).toMatchObject([
      { cId: expect.any(String), ip: expect.any(String), prms: { method: "qr" } },
    ]);
    await context.close();
  });

  it("when preSignIn times out, the page says it could not check and no session is opened", async () => {
    scriptHook("preSignIn", () => sleep(2000).then(() => ({ action: "allow" })));
    const account = await seedAccount({}, PASSWORD);
    const { context, page } = await fillSignInForm(await signInPage(), account.sub);
    expect(await alertText(page)).toMatch(/could not be checked/i);
    expect(await storedItems(account.sub, "SESSION#")).toEqual([]);
    await context.close();
  });

  it("when userMigration vouches for an unknown login, the account is created and the browser signs in", async () => {
    const email = `${uniqueId("legacy")}@legacy.example`;
    scriptHook("userMigration", (input) =>
      input.password === PASSWORD
        ? { action: "migrate", user: { email: { value: input.username, verified: true }, given_name: "Ada" } }
        : { action: "unknown" },
    );
    const { context, page } = await fillSignInForm(await signInPage(), email);
    await backAtClient(page);
    const snapshot = await loginSnapshot(services().logins, email, [], Math.floor(Date.now() / 1000));
    expect(snapshot.account).toMatchObject({ given_name: "Ada", email: { value: email, verified: true } });
    expect(hookCalls("userMigration")).toHaveLength(1);
    await context.close();
  });
});

describe("preRegistration on the hosted registration page", () => {
  it("when the hook refuses, the page shows its message and nothing is registered", async () => {
    scriptHook("preRegistration", () => ({ action: "deny", message: "Registrations from this domain are closed." }));
    const context = await browser().newContext({ locale: "en-US" });
    const page = await context.newPage();
    await page.goto((await signInPage()).toString());
    await page.getByRole("link", { name: /create an account/i }).click();
    const email = `${uniqueId("reg")}@example.net`;
    await page.getByLabel(/first name/i).fill("Eve");
    await page.getByLabel(/last name/i).fill("Evans");
    await page.getByLabel(/e-mail/i).fill(email);
    await page.getByLabel(/^password$/i).fill("a brand new passphrase 42");
    await page.getByRole("button", { name: /create account/i }).click();
    expect(await alertText(page)).toBe("Registrations from this domain are closed.");
    const snapshot = await loginSnapshot(services().logins, email, [], Math.floor(Date.now() / 1000));
    expect(snapshot.account).toBeUndefined();
    await context.close();
  });
});
