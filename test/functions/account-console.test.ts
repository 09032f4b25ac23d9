import { describe, expect, it } from "vitest";
import { keys } from "../../lib/store/keys";
import { useAccountConsole } from "../support/account-console";
import { seedAccount, systemBearer } from "../support/fixtures";
import { PASSWORD } from "../support/hosted-sign-in";
import { useSettings } from "../support/oauth-provider";
import { outbox } from "../support/outbox";
import { storedItems } from "../support/stored";
import { totpCode } from "../support/totp-codes";
import { virtualAuthenticator } from "../support/virtual-authenticator";

/**
 * The account console's frame, re-authentication and sign-in methods, in chromium
 * (docs/account.md): each change read back from the table, each refusal in words.
 */

const { signedIn, ageSignIn, at, browser, issuer } = await useAccountConsole();

/** The text of the element the keyboard is on (evaluated in the page). */
const FOCUSED_TEXT = "document.activeElement?.textContent?.trim() ?? ''";

/** What the management API answers about the account, as an application reads it back. */
async function throughTheApi(path: string, scopes: string[]) {
  const answer = await fetch(`${issuer}/api/v3/users/${path}`, {
    headers: { authorization: await systemBearer(scopes) },
  });
  expect(answer.status).toBe(200);
  return answer.json() as Promise<Record<string, unknown>>;
}

describe("the account console", () => {
  it("answers 401 to a browser that is not signed in, whose sign-in link leads through the hosted sign-in back to the console", async () => {
    const account = await seedAccount({}, PASSWORD);
    const context = await browser().newContext({ locale: "en-US" });
    const page = await context.newPage();
    const answer = await page.goto(at("/svc/account/sign-in-methods"));
    expect(answer?.status()).toBe(401);
    expect(await page.getByRole("alert").textContent()).toMatch(/not signed in/);
    await page.getByRole("link", { name: "Sign in" }).click();
    expect(await page.getByText("Sign in to manage your account").count()).toBe(1);
    await page.getByLabel(/login/i).fill(account.sub);
    await page.getByLabel(/^password$/i).fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.waitForURL((url) => url.pathname === "/svc/account");
    // No code and no token for the console: the browser session is all it needs.
    expect(new URL(page.url()).searchParams.has("code")).toBe(false);
    expect((await page.goto(at("/svc/account/sign-in-methods")))?.status()).toBe(200);
    const sessions = await storedItems(account.sub, keys.sessionPrefix);
    expect(sessions.map((s) => s.clientId)).toEqual(["svc-hosted"]);
    await context.close();
  });

  it("serves its pages with a CSP that admits no inline style or script, and the old account page leads to it", async () => {
    const { context, page } = await signedIn();
    const answer = await page.goto(at("/svc/oauth/account"));
    expect(new URL(page.url()).pathname).toBe("/svc/account/sign-in-methods");
    const csp = (await answer?.allHeaders())?.["content-security-policy"] ?? "";
    expect(csp).toContain("style-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain("unsafe-inline");
    // The style sheet applies: the card has its border, the navigation marks this section.
    expect(
      await page.locator("main.card").evaluate((el) => el.ownerDocument.defaultView?.getComputedStyle(el).borderStyle),
    ).toBe("solid");
    expect(await page.locator('nav a[aria-current="page"]').textContent()).toBe("Sign-in methods");
    await context.close();
  });

  it("adds, renames and removes a passkey; each change is stored and recorded as a security event", async () => {
    const { account, context, page } = await signedIn();
    const authenticator = await virtualAuthenticator(context, page);
    await page.goto(at("/svc/account/sign-in-methods"));
    await page.getByLabel("Name of the new passkey").fill("laptop");
    await page.getByRole("button", { name: "Add a passkey" }).click();
    await page.getByRole("status").filter({ hasText: "The passkey was added." }).waitFor();
    expect(await storedItems(account.sub, keys.passkeyPrefix)).toMatchObject([{ name: "laptop" }]);
    expect(await authenticator.credentials()).toHaveLength(1);
    // A new way in: the account's e-mail hears of it.
    expect(outbox(account.email?.value).at(-1)).toMatchObject({ subject: "A passkey was added to your account" });
    await page.getByLabel("New name").fill("work laptop");
    await page.getByRole("button", { name: "Rename laptop" }).click();
    await page.getByRole("status").filter({ hasText: "The passkey was renamed." }).waitFor();
    expect(await storedItems(account.sub, keys.passkeyPrefix)).toMatchObject([{ name: "work laptop" }]);
    expect(await throughTheApi(`${account.sub}/passkeys`, ["svc_api_sys_usec"])).toMatchObject([
      { name: "work laptop" },
    ]);
    await page.getByRole("button", { name: "Remove work laptop" }).click();
    await page.getByRole("status").filter({ hasText: "The passkey was removed." }).waitFor();
    expect(await storedItems(account.sub, keys.passkeyPrefix)).toEqual([]);
    const events = (await storedItems(account.sub, "EVENT#")).map((e) => e.type);
    expect(events).toEqual(expect.arrayContaining(["passkey_add", "passkey_rename", "passkey_delete"]));
    await context.close();
  });

  it("sets up an authenticator app with its QR code and first code, requires a second step, and removes the app", async () => {
    const { account, context, page } = await signedIn();
    await page.goto(at("/svc/account/sign-in-methods"));
    // No method to ask for yet: refused in words, nothing stored.
    await page.getByRole("button", { name: "Ask at every sign-in" }).click();
    expect(await page.getByRole("alert").textContent()).toMatch(/Add a passkey or an authenticator app first/);
    await page.getByRole("button", { name: "Set up an authenticator app" }).click();
    expect(await page.getByRole("img", { name: /QR code/ }).getAttribute("src")).toMatch(/^data:image\/png;base64,/);
    const secret = (await page.locator("main code").textContent()) ?? "";
    await page.getByLabel("Code from the app").fill("000000");
    await page.getByRole("button", { name: "Turn on" }).click();
    expect(await page.getByRole("alert").textContent()).toMatch(/The code is not right/);
    expect(await storedItems(account.sub, "TOTP#")).toEqual([]);
    await page.getByRole("button", { name: "Set up an authenticator app" }).click();
    const fresh = (await page.locator("main code").textContent()) ?? "";
    expect(fresh).not.toBe(secret);
    await page.getByLabel("Name of the app (optional)").fill("phone app");
    await page.getByLabel("Code from the app").fill(totpCode(fresh));
    await page.getByRole("button", { name: "Turn on" }).click();
    await page.getByRole("status").filter({ hasText: "The authenticator app is on." }).waitFor();
    expect(await page.locator("main").textContent()).not.toContain(fresh);
    expect(outbox(account.email?.value).at(-1)).toMatchObject({
      subject: "An authenticator app was set up for your account",
    });
    expect(outbox(account.email?.value).at(-1)?.text).not.toContain(fresh);
    await page.getByRole("button", { name: "Ask at every sign-in" }).click();
    await page.getByRole("status").filter({ hasText: "Every sign-in now asks for a second step." }).waitFor();
    expect((await storedItems(account.sub, "PROFILE"))[0]).toMatchObject({ requiredFactor: 2 });
    await page.getByRole("button", { name: "Stop asking at every sign-in" }).click();
    await page.getByRole("status").filter({ hasText: "no longer asks" }).waitFor();
    expect((await storedItems(account.sub, "PROFILE"))[0].requiredFactor).toBeUndefined();
    await page.getByRole("button", { name: "Remove phone app" }).click();
    await page.getByRole("status").filter({ hasText: "The authenticator app was removed." }).waitFor();
    await context.close();
  });

  it("lists where second-step codes can go when the operator switched codes on, and then lets the second step be required", async () => {
    const { account, context, page } = await signedIn();
    await page.goto(at("/svc/account/sign-in-methods"));
    expect(await page.getByText("Codes by e-mail or SMS are not offered").count()).toBe(1);
    useSettings({ secondFactor: { emailCodes: true } });
    try {
      await page.goto(at("/svc/account/sign-in-methods"));
      expect(await page.getByText(`A code to ${account.email?.value} can be your second step.`).count()).toBe(1);
      // A confirmed e-mail with codes on is a method to ask for: no app or passkey needed.
      await page.getByRole("button", { name: "Ask at every sign-in" }).click();
      await page.getByRole("status").filter({ hasText: "Every sign-in now asks for a second step." }).waitFor();
      expect((await storedItems(account.sub, "PROFILE"))[0]).toMatchObject({ requiredFactor: 2 });
      expect(await throughTheApi(`${account.sub}/auth`, ["svc_api_sys_usec"])).toMatchObject({ requiredFactor: 2 });
    } finally {
      useSettings({});
    }
    await context.close();
  });

  it("shows new recovery codes once; read again, the page shows how many are left, never the codes", async () => {
    const { context, page } = await signedIn();
    await page.goto(at("/svc/account/sign-in-methods"));
    await page.getByRole("button", { name: "Create new recovery codes" }).click();
    await page.getByText("Save these codes now").waitFor();
    const codes = await page.locator("ol.codes li").allTextContents();
    expect(new Set(codes).size).toBe(10);
    await page.goto(at("/svc/account/sign-in-methods"));
    expect(await page.getByText("10 of 10 recovery codes left").count()).toBe(1);
    expect(await page.locator("ol.codes").count()).toBe(0);
    await context.close();
  });

  it("asks a sign-in 11 minutes old to confirm it's you with the password, then makes the change", async () => {
    const { account, context, page } = await signedIn();
    await ageSignIn(account.sub, 11 * 60);
    await page.goto(at("/svc/account/sign-in-methods"));
    await page.getByRole("button", { name: "Create new recovery codes" }).click();
    await page.waitForURL(/\/svc\/account\/confirm\?next=methods/);
    expect(await storedItems(account.sub, "RECOVERY_CODES")).toEqual([]);
    await page.getByLabel("Your password").fill("not the password");
    await page.getByRole("button", { name: "Confirm", exact: true }).click();
    expect(await page.getByRole("alert").textContent()).toMatch(/did not confirm/);
    await page.getByLabel("Your password").fill(PASSWORD);
    await page.getByRole("button", { name: "Confirm", exact: true }).click();
    await page.waitForURL(/\/svc\/account\/sign-in-methods\?done=confirmed/);
    await page.getByRole("button", { name: "Create new recovery codes" }).click();
    await page.getByText("Save these codes now").waitFor();
    await context.close();
  });

  it("confirms it's you with a passkey of the account", async () => {
    const { account, context, page } = await signedIn();
    await virtualAuthenticator(context, page);
    await page.goto(at("/svc/account/sign-in-methods"));
    await page.getByRole("button", { name: "Add a passkey" }).click();
    await page.getByRole("status").filter({ hasText: "The passkey was added." }).waitFor();
    await ageSignIn(account.sub, 11 * 60);
    await page.getByRole("button", { name: /^Remove / }).click();
    await page.waitForURL(/\/svc\/account\/confirm/);
    await page.getByRole("button", { name: "Confirm with a passkey" }).click();
    await page.waitForURL(/\/svc\/account\/sign-in-methods\?done=confirmed/);
    await page.getByRole("button", { name: /^Remove / }).click();
    await page.getByRole("status").filter({ hasText: "The passkey was removed." }).waitFor();
    await context.close();
  });

  it("works from the keyboard alone: the sections are reached by Tab, a change is made with Enter, focus is visible", async () => {
    const { context, page } = await signedIn();
    await page.goto(at("/svc/account/password"));
    // From the top of the page, Tab reaches the navigation; Enter follows the link.
    let focused = "";
    for (let i = 0; i < 15 && focused !== "Sign-in methods"; i++) {
      await page.keyboard.press("Tab");
      focused = await page.evaluate<string>(FOCUSED_TEXT);
    }
    expect(focused).toBe("Sign-in methods");
    const outline = await page.evaluate<string>("getComputedStyle(document.activeElement).outlineStyle");
    expect(outline).toBe("solid");
    await page.keyboard.press("Enter");
    await page.waitForURL(/\/svc\/account\/sign-in-methods$/);
    for (let i = 0; i < 40 && focused !== "Create new recovery codes"; i++) {
      await page.keyboard.press("Tab");
      focused = await page.evaluate<string>(FOCUSED_TEXT);
    }
    expect(focused).toBe("Create new recovery codes");
    await page.keyboard.press("Enter");
    await page.getByText("Save these codes now").waitFor();
    await context.close();
  });

  it("refuses a form without the browser's CSRF token, changing nothing", async () => {
    const { account, context, page } = await signedIn();
    await page.goto(at("/svc/account/sign-in-methods"));
    const answer = await page.request.post(at("/svc/account/sign-in-methods/second-factor"), {
      form: { csrf: "forged", required: "true" },
    });
    expect(answer.status()).toBe(400);
    expect((await storedItems(account.sub, "PROFILE"))[0].requiredFactor).toBeUndefined();
    await context.close();
  });
});
