import { PutCommand } from "@aws-sdk/lib-dynamodb";
import * as oidc from "openid-client";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { config } from "../../lib/config";
import { passwordResetDeps, services } from "../../lib/container";
import { documentClient } from "../../lib/document-client";
import {
  finishPasswordReset,
  MAX_RESET_CODES_PER_HOUR,
  requestPasswordReset,
} from "../../lib/domain/passwords/reset-password";
import { keys } from "../../lib/store/keys";
import { seedAccount, uniqueId } from "../support/fixtures";
import { PASSWORD, useHostedSignIn } from "../support/hosted-sign-in";
import { lastCode, outbox } from "../support/outbox";
import { storedItem } from "../support/stored";

/**
 * Registration and forgotten password on the hosted pages, in a real chromium: codes are
 * read from the outbox as a user reads them from the mailbox or phone.
 */

const { browser, relyingParty, startAuthorization, submit, fillSignInForm, alertText, backAtClient } =
  await useHostedSignIn();

const NEW_PASSWORD = "a brand new passphrase 42";

function newPhone(): string {
  return `7${String(Math.floor(Math.random() * 1e10)).padStart(10, "0")}`;
}

async function openSignIn(url: URL, locale = "en-US") {
  const context = await browser().newContext({ locale });
  const page = await context.newPage();
  await page.goto(url.toString());
  return { context, page };
}

async function press(page: Page, name: RegExp) {
  await page.getByRole("button", { name }).click();
}

describe("registration on the hosted pages", () => {
  it("registers with codes from the outbox, shows the policy, and signs the new account in", async () => {
    const { config, redirectUri } = await relyingParty();
    const started = await startAuthorization(config, redirectUri);
    const { context, page } = await openSignIn(started.url);
    await page.getByRole("link", { name: /create an account/i }).click();

    const email = `${uniqueId("reg")}@example.com`;
    const phone = newPhone();
    expect(await page.getByLabel(/first name/i).getAttribute("autocomplete")).toBe("given-name");
    expect(await page.getByLabel(/last name/i).getAttribute("autocomplete")).toBe("family-name");
    expect(await page.getByLabel(/middle name/i).getAttribute("autocomplete")).toBe("additional-name");
    expect(await page.getByLabel(/e-mail/i).getAttribute("autocomplete")).toBe("email");
    expect(await page.getByLabel(/phone/i).getAttribute("autocomplete")).toBe("tel");
    expect(await page.getByLabel(/^password$/i).getAttribute("autocomplete")).toBe("new-password");
    await page.getByLabel(/first name/i).fill("Anna");
    await page.getByLabel(/last name/i).fill("Petrova");
    await page.getByLabel(/e-mail/i).fill(email);
    await page.getByLabel(/phone/i).fill(phone);
    await page.getByLabel(/^password$/i).fill("short");
    await press(page, /create account/i);
    // The policy's words; nothing was sent or stored.
    expect(await alertText(page)).toMatch(/does not meet the rules[\s\S]*at least \d+ characters/);
    expect(outbox(email)).toEqual([]);
    expect(await services().accounts.claimOwner("email", email)).toBeUndefined();
    // What was typed stays, except the password.
    expect(await page.getByLabel(/e-mail/i).inputValue()).toBe(email);

    await page.getByLabel(/^password$/i).fill(NEW_PASSWORD);
    await press(page, /create account/i);
    await page.getByLabel(`Code sent to ${email}`).waitFor();
    expect(await page.getByLabel(`Code sent to ${email}`).getAttribute("autocomplete")).toBe("one-time-code");
    // A wrong code costs an attempt and says how many are left.
    await page.getByLabel(`Code sent to ${email}`).fill(lastCode(email) === "000000" ? "111111" : "000000");
    await page.getByLabel(`Code sent to ${phone}`).fill(lastCode(phone));
    await press(page, /^confirm$/i);
    expect(await alertText(page)).toMatch(/wrong or has expired\. Attempts left: 2/);
    await page.getByLabel(`Code sent to ${email}`).fill(lastCode(email));
    await press(page, /^confirm$/i);

    const callback = await backAtClient(page);
    const tokens = await oidc.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: started.verifier,
      expectedState: started.state,
      expectedNonce: started.nonce,
    });
    const sub = tokens.claims()?.sub as string;
    const account = await services().accounts.get(sub);
    expect(account).toMatchObject({
      given_name: "Anna",
      family_name: "Petrova",
      email: { value: email, verified: true },
      phone_number: { verified: true },
    });
    const info = await oidc.fetchUserInfo(config, tokens.access_token, sub);
    expect(info).toMatchObject({ email, email_verified: true, given_name: "Anna" });
    // One browser session and the client's, each on the recorded device; no stray application session.
    const sessions = await services().sessions.listSessions(sub);
    expect(sessions.map((s) => s.clientId).sort()).toEqual(["svc-hosted", config.clientMetadata().client_id].sort());
    expect(await services().sessions.listDevices(sub)).toHaveLength(1);
    // The new account signs in with its password.
    const again = await startAuthorization(config, redirectUri, { prompt: "login" });
    const signIn = await fillSignInForm(again.url, email, NEW_PASSWORD);
    expect((await backAtClient(signIn.page)).searchParams.get("code")).toBeTruthy();
    await signIn.context.close();
    await context.close();
  });

  it("does not say an e-mail is taken (Russian): the codes page follows and the owner gets a notice, no code", async () => {
    const existing = await seedAccount({}, PASSWORD);
    const { config, redirectUri } = await relyingParty();
    const started = await startAuthorization(config, redirectUri, { ui_locales: "ru" });
    const { context, page } = await openSignIn(started.url, "ru-RU");
    await page.getByRole("link", { name: "Создать учётную запись" }).click();
    const email = existing.email?.value as string;
    const sentBefore = outbox(email).length;
    await page.getByLabel("E-mail").fill(email);
    await page.getByLabel("Пароль").fill(NEW_PASSWORD);
    await press(page, /зарегистрироваться/i);
    // As for a free address: the codes page (ASVS V6, issue 43 item 5).
    await page.getByLabel(`Код отправлен на ${email}`).waitFor();
    const sent = outbox(email).slice(sentBefore);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ lang: "ru", subject: "Попытка регистрации с вашим адресом" });
    expect(sent[0].text).not.toMatch(/\d{4,}/);
    await context.close();
  });

  it("asks for an e-mail or a phone when neither is given (Russian)", async () => {
    const { config, redirectUri } = await relyingParty();
    const started = await startAuthorization(config, redirectUri, { ui_locales: "ru" });
    const { context, page } = await openSignIn(started.url, "ru-RU");
    await page.getByRole("link", { name: "Создать учётную запись" }).click();
    // Neither a contact nor a field at all: asked for one.
    await page.getByLabel("E-mail").fill("");
    await page.getByLabel("Пароль").fill(NEW_PASSWORD);
    await press(page, /зарегистрироваться/i);
    expect(await alertText(page)).toBe("Укажите e-mail или номер телефона.");
    await context.close();
  });

  it("resends a code on request, and refuses a page without its form", async () => {
    const { config, redirectUri } = await relyingParty();
    const started = await startAuthorization(config, redirectUri);
    const { context, page } = await openSignIn(started.url);
    await page.getByRole("link", { name: /create an account/i }).click();
    const email = `${uniqueId("resend")}@example.com`;
    await page.getByLabel(/e-mail/i).fill(email);
    await page.getByLabel(/^password$/i).fill(NEW_PASSWORD);
    await press(page, /create account/i);
    await page.getByLabel(`Code sent to ${email}`).waitFor();
    const first = lastCode(email);
    await press(page, /send the e-mail code again/i);
    expect(await page.getByRole("status").textContent()).toMatch(/new code has been sent/);
    expect(outbox(email)).toHaveLength(2);
    await page.getByLabel(`Code sent to ${email}`).fill(lastCode(email));
    await press(page, /^confirm$/i);
    await backAtClient(page);
    expect(first).toMatch(/^\d+$/);

    // Opening the registration page without the sign-in page's cookie: an error page, no form.
    const stranger = await browser().newContext({ locale: "en-US" });
    const lost = await stranger.newPage();
    const response = await lost.goto(`${new URL(started.url).origin}/svc/oauth/register?interaction=forged`);
    expect(response?.status()).toBe(400);
    expect(await lost.locator("form").count()).toBe(0);
    await stranger.close();
    await context.close();
  });
});

describe("forgotten password on the hosted pages", () => {
  it("sends a code, refuses a wrong one and a weak password, then signs in with the new password", async () => {
    const account = await seedAccount({}, PASSWORD);
    const email = account.email?.value as string;
    const { config, redirectUri } = await relyingParty();
    // A session from before the reset, which the reset ends.
    const before = await startAuthorization(config, redirectUri);
    const old = await fillSignInForm(before.url, email);
    await backAtClient(old.page);
    expect(await services().sessions.listSessions(account.sub)).toHaveLength(1);

    const started = await startAuthorization(config, redirectUri, { prompt: "login" });
    const { context, page } = await openSignIn(started.url);
    await page.getByRole("link", { name: /forgot your password/i }).click();
    await page.getByLabel(/login/i).fill(email);
    await press(page, /send code/i);
    expect(await page.getByRole("status").textContent()).toMatch(/If the login names an account/);
    expect(outbox(email).at(-1)?.subject).toBe("Your password reset code");
    const code = lastCode(email);

    await page.getByLabel(/code from the message/i).fill(code === "000000" ? "111111" : "000000");
    await page.getByLabel(/new password/i).fill(NEW_PASSWORD);
    await press(page, /set password/i);
    expect(await alertText(page)).toMatch(/code is not valid/);
    expect((await services().passwordResets.get(account.sub))?.attemptsLeft).toBe(2);

    await page.getByLabel(/code from the message/i).fill(code);
    await page.getByLabel(/new password/i).fill("short");
    await press(page, /set password/i);
    expect(await alertText(page)).toMatch(/does not meet the rules[\s\S]*at least \d+ characters/);

    await page.getByLabel(/code from the message/i).fill(code);
    await page.getByLabel(/new password/i).fill(NEW_PASSWORD);
    await press(page, /set password/i);
    expect(await page.getByRole("status").textContent()).toMatch(/password was changed/i);
    // The code is spent, the old session ended, the change recorded.
    expect(await services().passwordResets.get(account.sub)).toBeUndefined();
    expect(await services().sessions.listSessions(account.sub)).toEqual([]);
    const events = await services().events.list(account.sub, 0, Date.now() + 1000, 100);
    expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(["password_reset", "password_change"]));
    expect(JSON.stringify(events)).not.toContain(code);

    // The sign-in page is back with the login filled in.
    expect(await page.getByLabel(/login/i).inputValue()).toBe(email);
    await page.getByLabel(/^password$/i).fill(NEW_PASSWORD);
    await submit(page);
    expect((await backAtClient(page)).searchParams.get("code")).toBeTruthy();
    // The old password no longer works.
    const stale = await fillSignInForm((await startAuthorization(config, redirectUri)).url, email, PASSWORD);
    expect(await alertText(stale.page)).toMatch(/login or the password is wrong/);
    await Promise.all([stale.context.close(), old.context.close(), context.close()]);
  });

  it("answers an unknown login exactly like a known one, and sends nothing", async () => {
    const { config, redirectUri } = await relyingParty();
    const started = await startAuthorization(config, redirectUri);
    const pages: string[] = [];
    const known = await seedAccount({}, PASSWORD);
    for (const login of [`${uniqueId("nobody")}@example.com`, known.email?.value as string]) {
      const { context, page } = await openSignIn(started.url);
      await page.getByRole("link", { name: /forgot your password/i }).click();
      await page.getByLabel(/login/i).fill(login);
      await press(page, /send code/i);
      await page.getByRole("status").waitFor();
      pages.push((await page.locator("main").innerText()).replace(login, "LOGIN"));
      await context.close();
    }
    expect(pages[0]).toBe(pages[1]);
    expect(outbox(known.email?.value as string)).toHaveLength(1);
  });

  it("sends no more codes to an account than the hourly cap, however many requests race", async () => {
    const account = await seedAccount({}, PASSWORD);
    const phone = account.phone_number?.value as string;
    const caller = { clientId: "test-client", language: "en" as const };
    const now = Math.floor(Date.now() / 1000);
    await Promise.all(
      Array.from({ length: MAX_RESET_CODES_PER_HOUR + 3 }, () =>
        requestPasswordReset(phone, caller, passwordResetDeps(), now),
      ),
    );
    // The phone was the login, so the codes went to it, and only up to the cap.
    expect(outbox(phone)).toHaveLength(MAX_RESET_CODES_PER_HOUR);
    expect(outbox(account.email?.value as string)).toEqual([]);
    const stored = await services().passwordResets.get(account.sub);
    expect(stored).toMatchObject({ sub: account.sub, field: "phone_number" });
    expect(JSON.stringify(stored)).not.toContain(lastCode(phone));
  });

  it("forgets the consecutive failures that stopped password sign-in once a reset sets a new password", async () => {
    const account = await seedAccount({}, PASSWORD);
    const email = account.email?.value as string;
    const caller = { clientId: "test-client", language: "en" as const };
    const now = Math.floor(Date.now() / 1000);
    await documentClient().send(
      new PutCommand({
        TableName: config().tableName,
        Item: { ...keys.loginFailures(account.sub), entity: "login-failures", schemaVersion: 1, count: 100 },
      }),
    );
    await requestPasswordReset(email, caller, passwordResetDeps(), now);
    await finishPasswordReset(
      { login: email, code: lastCode(email), password: "a brand new long passphrase" },
      caller,
      passwordResetDeps(),
      now,
    );
    expect(await storedItem(keys.loginFailures(account.sub))).toBeUndefined();
  });

  it("sends nothing to a locked account or to an unconfirmed contact", async () => {
    const locked = await seedAccount({ locked: true }, PASSWORD);
    const unconfirmed = await seedAccount({ email: { value: `${uniqueId("unc")}@example.com`, verified: false } });
    const caller = { clientId: "test-client", language: "en" as const };
    const now = Math.floor(Date.now() / 1000);
    await requestPasswordReset(locked.email?.value as string, caller, passwordResetDeps(), now);
    await requestPasswordReset(unconfirmed.email?.value as string, caller, passwordResetDeps(), now);
    expect(outbox(locked.email?.value as string)).toEqual([]);
    expect(outbox(unconfirmed.email?.value as string)).toEqual([]);
  });
});
