import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { services } from "../../lib/container";
import { seriousViolations as axeViolations, type Found } from "../support/axe";
import { seedAccount, uniqueId } from "../support/fixtures";
import { PASSWORD, useHostedSignIn } from "../support/hosted-sign-in";

/**
 * The hosted pages against axe-core (WCAG 2.1 A and AA, and axe's best practices), in
 * chromium, in both languages: no serious or critical violation. The pages' CSP admits no
 * inline script, so the checking context bypasses it to inject axe; the CSP itself is
 * checked by the page tests.
 */

const { issuer, browser, relyingParty, startAuthorization, submit, rp } = await useHostedSignIn();

/** `npm run screenshots` sets it: each page checked is also saved there, for the docs. */
const SCREENSHOTS = process.env.SVC_SCREENSHOTS;

async function seriousViolations(page: Page, name: string): Promise<Found[]> {
  if (SCREENSHOTS) {
    mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: join(SCREENSHOTS, `${name}-${await page.getAttribute("html", "lang")}.png`) });
  }
  return axeViolations(page);
}

async function pageIn(locale: string) {
  const context = await browser().newContext({ locale, bypassCSP: true, viewport: { width: 640, height: 560 } });
  return { context, page: await context.newPage() };
}

describe.each([
  ["en-US", "en"],
  ["ru-RU", "ru"],
])("hosted pages in %s", (locale, lang) => {
  it("the sign-in, registration, forgotten-password, phone sign-in and error pages have no serious violation", async () => {
    const { config, redirectUri } = await relyingParty();
    const started = await startAuthorization(config, redirectUri, { ui_locales: lang });
    const { context, page } = await pageIn(locale);
    await page.goto(started.url.toString());
    expect(await page.getAttribute("html", "lang")).toBe(lang);
    const pages: Record<string, Found[]> = { signIn: await seriousViolations(page, "sign-in") };
    for (const path of ["register", "reset", "qr-signin"]) {
      const link = page.locator(`a[href^="/svc/oauth/${path}"]`);
      await page.goto(new URL((await link.getAttribute("href")) ?? "", started.url).toString());
      pages[path] = await seriousViolations(page, path);
      await page.goBack();
    }
    // A refused password: the page with its alert.
    await page.getByLabel(/login|логин/i).fill("nobody-here");
    await page.getByLabel(/^(password|пароль)$/i).fill("wrong password");
    await submit(page);
    await page.getByRole("alert").waitFor();
    pages.refused = await seriousViolations(page, "sign-in-refused");
    const unknown = new URL(started.url);
    unknown.searchParams.set("client_id", "no-such-client");
    await page.goto(unknown.toString());
    pages.error = await seriousViolations(page, "error");
    await context.close();
    expect(pages).toEqual({ signIn: [], register: [], reset: [], "qr-signin": [], refused: [], error: [] });
  });

  it("the device page (RFC 8628) and its last word have no serious violation", async () => {
    const { context, page } = await pageIn(locale);
    await page.goto(`${issuer}/oauth/device?user_code=BCDF-GHJK&ui_locales=${lang}`);
    expect(await page.getByRole("textbox").inputValue()).toBe("BCDF-GHJK");
    const form = await seriousViolations(page, "device");
    await page.goto(`${issuer}/oauth/device?done=approved&ui_locales=${lang}`);
    await page.getByRole("status").waitFor();
    const done = await seriousViolations(page, "device-done");
    await context.close();
    expect({ form, done }).toEqual({ form: [], done: [] });
  });

  it("the consent page of a client that registered itself asking for a protected resource, the form_post page and the account page have no serious violation", async () => {
    const account = await seedAccount({}, PASSWORD);
    const party = await relyingParty({ registeredAs: "Notes Agent" });
    const resource = `https://notes.example/${uniqueId("mcp-")}`;
    const scopes = [
      { name: "notes:read", description: lang === "ru" ? "Читать ваши заметки" : "Read your notes" },
      { name: "notes:write", description: lang === "ru" ? "Добавлять заметки" : "Add notes" },
    ];
    const now = Math.floor(Date.now() / 1000);
    await services().resources.create(
      { uri: resource, name: "Notes", scopes, consent: "user", createdAt: now, updatedAt: now },
      [],
    );
    const started = await startAuthorization(party.config, party.redirectUri, {
      ui_locales: lang,
      response_mode: "form_post",
      scope: "openid profile notes:read notes:write",
      resource,
    });
    const { context, page } = await pageIn(locale);
    // The relying party answers 204, so the browser stays on the page that posts to it.
    await page.route(`${rp.url()}/**`, (route) => route.fulfill({ status: 204 }));
    await page.goto(started.url.toString());
    await page.getByLabel(/login|логин/i).fill(account.sub);
    await page.getByLabel(/^(password|пароль)$/i).fill(PASSWORD);
    await submit(page);
    await page.getByRole("button", { name: /allow|разрешить/i }).waitFor();
    expect(await page.locator("p.note").count()).toBe(1);
    expect(await page.getByRole("listitem").allInnerTexts()).toEqual(
      expect.arrayContaining(scopes.map((s) => s.description)),
    );
    const consent = await seriousViolations(page, "consent");
    const posted = page.waitForRequest((request) => request.url() === party.redirectUri);
    await page.getByRole("button", { name: /allow|разрешить/i }).click();
    // The page's script posted the code; the page stays, since the client answered 204.
    expect((await posted).method()).toBe("POST");
    await page.locator(`form[action="${party.redirectUri}"]`).waitFor({ state: "attached" });
    const formPost = await seriousViolations(page, "form-post");
    // The signed-in user's own page (passkeys, recovery codes), and signed out.
    await page.goto(`${issuer}/account/sign-in-methods`);
    const accountPage = await seriousViolations(page, "account");
    await context.clearCookies();
    await page.goto(`${issuer}/account/sign-in-methods`);
    const signedOut = await seriousViolations(page, "account-signed-out");
    await context.close();
    expect({ consent, formPost, accountPage, signedOut }).toEqual({
      consent: [],
      formPost: [],
      accountPage: [],
      signedOut: [],
    });
  });
});
