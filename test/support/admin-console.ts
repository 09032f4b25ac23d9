import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { expect } from "vitest";
import { services } from "../../lib/container";
import type { Account } from "../../lib/domain/accounts/account";
import { OPERATOR_CONSOLE_CLIENT } from "../../lib/domain/operators/console-client";
import { keys } from "../../lib/store/keys";
import { seriousViolations } from "./axe";
import { seedAccount, systemBearer, uniqueId } from "./fixtures";
import { PASSWORD, useHostedSignIn } from "./hosted-sign-in";
import { storedItems } from "./stored";
import { totpCode } from "./totp-codes";

/**
 * A test file's admin console (docs/console.md) in chromium: operators with an authenticator
 * app, signed in through the hosted pages with their second factor, and the management API
 * to read back what a screen changed.
 */
export async function useAdminConsole() {
  const { issuer, browser } = await useHostedSignIn();
  const consoleUrl = () => `${issuer}/console/`;
  const api = (path: string) => `${issuer}/api/v3${path}`;

  /** The management API as an application reads it back. */
  async function read(path: string, scopes: string[]): Promise<{ status: number; body: Record<string, unknown> }> {
    const answer = await fetch(path.startsWith("http") ? path : api(path), {
      headers: { authorization: await systemBearer(scopes) },
    });
    return {
      status: answer.status,
      body: answer.status === 204 ? {} : ((await answer.json()) as Record<string, unknown>),
    };
  }

  async function send(method: string, path: string, scopes: string[], body?: unknown): Promise<number> {
    const answer = await fetch(path.startsWith("http") ? path : api(path), {
      method,
      headers: { authorization: await systemBearer(scopes), "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return answer.status;
  }

  /** An account with an authenticator app enrolled through the API and a second factor required; an operator when `right` is given. */
  async function person(right?: "APP_ADMIN" | "SYS_MON"): Promise<Person> {
    const account = await seedAccount({ given_name: "Olga", family_name: uniqueId("Operator") }, PASSWORD);
    const security = ["svc_api_sys_usec", "svc_api_sys_usec_chg"];
    const issued = await read(`/users/${account.sub}/totps/attach/qr`, security);
    const secret = issued.body.base32Secret as string;
    // Enrolled with the previous step's code, so the first sign-in may use the current one at once.
    const step = Math.floor(Date.now() / 30_000) - 1;
    expect(
      await send("POST", `/users/${account.sub}/totps/attach/qr`, security, {
        base32Secret: secret,
        otpCode: totpCode(secret, -30),
        name: "phone",
      }),
    ).toBe(204);
    expect(await send("POST", `/users/${account.sub}/auth`, security, { requiredFactor: 2 })).toBe(200);
    if (right)
      expect(
        await send("PUT", "/rights", ["svc_rights_full_access"], {
          subject: account.sub,
          object: "svc-console",
          objectType: "its",
          rights: [right],
          tags: ["console-test"],
        }),
      ).toBe(204);
    return { account, secret, lastStep: step };
  }

  /** A code of the person's authenticator that the service has not seen yet (a code is taken once). */
  async function freshCode(who: Person): Promise<string> {
    while (Math.floor(Date.now() / 30_000) <= who.lastStep) await new Promise((done) => setTimeout(done, 500));
    who.lastStep = Math.floor(Date.now() / 30_000);
    return totpCode(who.secret);
  }

  /** The hosted sign-in page's steps: login and password, then the authenticator's code when it asks. */
  async function passSignIn(page: Page, who: Person): Promise<void> {
    const login = page.getByLabel(/login/i);
    const code = page.getByLabel(/authenticator app/i);
    await login
      .or(page.getByLabel(/^password$/i))
      .first()
      .waitFor();
    if (await login.count()) await login.fill(who.account.sub);
    await page.getByLabel(/^password$/i).fill(PASSWORD);
    await page.getByRole("button", { name: /^(sign in|войти)$/i }).click();
    await code.waitFor();
    await code.fill(await freshCode(who));
    await page.getByRole("button", { name: /^(sign in|войти)$/i }).click();
  }

  /** A browser at the console, signed in as `who`, on the Users screen (CSP bypassed so axe-core can be injected). */
  async function openConsole(who: Person): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser().newContext({ locale: "en-US", bypassCSP: true });
    await context.grantPermissions(["clipboard-read", "clipboard-write"]);
    const page = await context.newPage();
    await page.goto(consoleUrl());
    await passSignIn(page, who);
    await page.getByRole("heading", { level: 1, name: "Users" }).waitFor();
    return { context, page };
  }

  /** Makes the operator's console sessions signed in `seconds` ago, as if that much time had passed. */
  async function ageConsoleSignIn(sub: string, seconds: number): Promise<void> {
    const sessions = (await storedItems(sub, keys.sessionPrefix)).filter((s) => s.clientId === OPERATOR_CONSOLE_CLIENT);
    expect(sessions.length).toBeGreaterThan(0);
    for (const session of sessions)
      await services().sessions.confirmSignIn(sub, session.sid as string, Math.floor(Date.now() / 1000) - seconds);
  }

  const heading = (page: Page) => page.getByRole("heading", { level: 1 });
  const focusedText = (page: Page) => page.evaluate<string>("document.activeElement?.textContent?.trim() ?? ''");

  async function expectAccessible(page: Page): Promise<void> {
    expect(await seriousViolations(page)).toEqual([]);
  }

  /** `npm run screenshots` keeps a picture of each screen for docs/console.md. */
  const SCREENSHOTS = process.env.SVC_SCREENSHOTS;
  async function picture(page: Page, name: string): Promise<void> {
    if (!SCREENSHOTS) return;
    mkdirSync(SCREENSHOTS, { recursive: true });
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.screenshot({ path: join(SCREENSHOTS, `console-${name}-1280.png`), fullPage: true });
  }

  return {
    issuer,
    browser,
    consoleUrl,
    api,
    read,
    send,
    person,
    freshCode,
    passSignIn,
    openConsole,
    ageConsoleSignIn,
    heading,
    focusedText,
    expectAccessible,
    picture,
  };
}

export interface Person {
  account: Account;
  /** The base32 secret of its authenticator app. */
  secret: string;
  lastStep: number;
}
