import type { BrowserContext, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import type { Account } from "../../lib/domain/accounts/account";
import { HOSTED_CLIENT } from "../../lib/domain/oidc/browser-session";
import { keys } from "../../lib/store/keys";
import { useAccountConsole } from "../support/account-console";
import { type Found, seriousViolations } from "../support/axe";
import { seedAccount, systemBearer, uniqueId } from "../support/fixtures";
import { PASSWORD } from "../support/hosted-sign-in";
import { lastCode, outbox } from "../support/outbox";
import { storedItem, storedItems } from "../support/stored";

/**
 * The account console's profile and password sections in chromium (docs/account/profile.md,
 * docs/account/password.md): each change read back from the table, each refusal in words,
 * the codes read from the outbox as the user reads them from their mail or phone.
 */

const {
  signedIn,
  ageSignIn,
  at,
  browser,
  relyingParty,
  startAuthorization,
  fillSignInForm,
  backAtClient,
  alertText,
  issuer,
} = await useAccountConsole();

const NEW_PASSWORD = "a different horse jumps the fence";

const profileOf = async (sub: string) => (await storedItem(keys.userProfile(sub))) as unknown as Account;
const credentialOf = (sub: string) => storedItem(keys.passwordCredential(sub));
const eventsOf = async (sub: string) =>
  (await storedItems(sub, "EVENT#")).map((e) => ({ type: e.type, result: e.result, prms: e.prms }));

const newAddress = () => `${uniqueId("new")}@example.com`;
/** A new phone as a person types it, and its normal form (the digits), which the SMS goes to. */
function newPhone() {
  const digits = `79${String(Math.floor(Math.random() * 1e9)).padStart(9, "0")}`;
  return { typed: `+7 ${digits.slice(1, 4)} ${digits.slice(4, 7)}-${digits.slice(7, 9)}-${digits.slice(9)}`, digits };
}
/** A code that is surely not `code`. */
const wrongOf = (code: string) => code.replace(/\d$/, (d) => String((Number(d) + 1) % 10));

async function status(page: Page, text: string | RegExp) {
  await page.getByRole("status").filter({ hasText: text }).waitFor();
}

describe("the profile section", () => {
  it("is the console's landing page: names, e-mail and phone with whether each is confirmed", async () => {
    const account = await seedAccount({ phone_number: { value: "79990001122", verified: false } }, PASSWORD);
    const { context, page } = await signedIn({ account });
    await page.goto(at("/svc/account"));
    expect(await page.locator('nav a[aria-current="page"]').textContent()).toBe("Profile");
    expect(await page.getByLabel("Given name").inputValue()).toBe("Ivan");
    expect(await page.getByLabel("Middle name").inputValue()).toBe("Ivanovich");
    expect(await page.getByLabel("Family name").inputValue()).toBe("Ivanov");
    const main = (await page.locator("main").textContent()) ?? "";
    expect(main).toContain(`${account.email?.value} (confirmed)`);
    expect(main).toContain("79990001122 (not confirmed)");
    await context.close();
  });

  it("changes the names, an emptied field removing that name; stored and recorded as users.change", async () => {
    const { account, context, page } = await signedIn();
    await page.goto(at("/svc/account"));
    await page.getByLabel("Given name").fill("Anna");
    await page.getByLabel("Middle name").fill("");
    await page.getByLabel("Family name").fill("  Petrova ");
    await page.getByRole("button", { name: "Save name" }).click();
    await status(page, "Your name was saved.");
    const stored = await profileOf(account.sub);
    expect(stored).toMatchObject({ given_name: "Anna", family_name: "Petrova" });
    expect(stored.middle_name).toBeUndefined();
    expect(await page.getByLabel("Family name").inputValue()).toBe("Petrova");
    // As an application reads it back through the management API.
    const read = await fetch(`${issuer}/api/v3/users/${account.sub}`, {
      headers: { authorization: await systemBearer(["svc_api_sys_users"]) },
    });
    const body = (await read.json()) as Record<string, unknown>;
    expect(JSON.stringify(body)).toContain("Petrova");
    expect(JSON.stringify(body)).not.toContain("Ivanovich");
    // Saved again unchanged: nothing is written, and the page says so.
    await page.getByRole("button", { name: "Save name" }).click();
    await status(page, "Nothing to save");
    expect(await eventsOf(account.sub)).toContainEqual({
      type: "users.change",
      result: "ok",
      prms: { attrs: expect.arrayContaining(["given_name", "middle_name", "family_name"]) },
    });
    expect((await eventsOf(account.sub)).filter((e) => e.type === "users.change")).toHaveLength(1);
    await context.close();
  });

  it("changes the e-mail with the code sent to it: a wrong code is refused with the attempts left, the right one stores it confirmed", async () => {
    const { account, context, page } = await signedIn();
    const address = newAddress();
    await page.goto(at("/svc/account"));
    await page.getByLabel("New e-mail address").fill(address);
    await page.getByRole("button", { name: "Change e-mail" }).click();
    await status(page, "A code is on its way to the new e-mail address.");
    expect(await page.getByText(`Waiting for the code sent to ${address}.`).count()).toBe(1);
    // The change waits on the account; the address stays as it was until the code comes back.
    const waiting = await profileOf(account.sub);
    expect(waiting.email).toEqual(account.email);
    expect(waiting.pending_email).toMatchObject({ value: address, attemptsLeft: 3 });
    const code = lastCode(address);

    await page.getByLabel(`Code sent to ${address}`).fill(wrongOf(code));
    await page.getByRole("button", { name: "Confirm e-mail" }).click();
    expect(await alertText(page)).toBe("That code is not right. Attempts left: 2.");
    expect((await profileOf(account.sub)).email).toEqual(account.email);

    await page.getByLabel(`Code sent to ${address}`).fill(code);
    await page.getByRole("button", { name: "Confirm e-mail" }).click();
    await status(page, "Your e-mail address was changed and is confirmed.");
    const changed = await profileOf(account.sub);
    expect(changed.email).toEqual({ value: address, verified: true });
    expect(changed.pending_email).toBeUndefined();
    // The notice goes to the address as it was, with no code in it.
    const notice = outbox(account.email?.value).at(-1);
    expect(notice).toMatchObject({ channel: "email", subject: "The e-mail address of your account was changed" });
    expect(notice?.text).toMatch(/This wasn't me/);
    expect(notice?.text).not.toContain(code);
    expect((await page.locator("main").textContent()) ?? "").toContain(`${address} (confirmed)`);
    expect(await eventsOf(account.sub)).toEqual(
      expect.arrayContaining([
        { type: "users.change", result: "ok", prms: { attrs: ["email"] } },
        { type: "users.validate_email", result: "wrong_code", prms: { attr: "email" } },
        { type: "users.validate_email", result: "ok", prms: { attr: "email" } },
      ]),
    );
    await context.close();
  });

  it("changes the phone likewise, the number typed as people type it; a malformed one is refused in words", async () => {
    const { account, context, page } = await signedIn();
    const phone = newPhone();
    await page.goto(at("/svc/account"));
    await page.getByLabel("New phone number").fill("12-34");
    await page.getByRole("button", { name: "Change phone" }).click();
    expect(await alertText(page)).toMatch(/not a valid phone number/);
    expect((await profileOf(account.sub)).pending_phone_number).toBeUndefined();

    await page.getByLabel("New phone number").fill(phone.typed);
    await page.getByRole("button", { name: "Change phone" }).click();
    await status(page, "A code is on its way to the new phone number.");
    const code = lastCode(phone.digits);
    await page.getByLabel(`Code sent to ${phone.digits}`).fill(wrongOf(code));
    await page.getByRole("button", { name: "Confirm phone" }).click();
    expect(await alertText(page)).toBe("That code is not right. Attempts left: 2.");
    expect((await profileOf(account.sub)).phone_number).toEqual(account.phone_number);
    await page.getByLabel(`Code sent to ${phone.digits}`).fill(code);
    await page.getByRole("button", { name: "Confirm phone" }).click();
    await status(page, "Your phone number was changed and is confirmed.");
    const changed = await profileOf(account.sub);
    expect(changed.phone_number).toEqual({ value: phone.digits, verified: true });
    expect(changed.pending_phone_number).toBeUndefined();
    expect(await eventsOf(account.sub)).toEqual(
      expect.arrayContaining([
        { type: "users.change", result: "contact_use_violation", prms: { attrs: ["phone_number"] } },
        { type: "users.validate_mobile", result: "ok", prms: { attr: "phone_number" } },
      ]),
    );
    await context.close();
  });

  it("refuses an e-mail address another account uses, in words, once its code comes back; nothing is stored", async () => {
    const other = await seedAccount();
    const taken = other.email?.value as string;
    const { account, context, page } = await signedIn();
    await page.goto(at("/svc/account"));
    // Typed in capitals: the same address in its normal form.
    await page.getByLabel("New e-mail address").fill(taken.toUpperCase());
    await page.getByRole("button", { name: "Change e-mail" }).click();
    await status(page, "A code is on its way");
    await page.getByLabel(`Code sent to ${taken}`).fill(lastCode(taken));
    await page.getByRole("button", { name: "Confirm e-mail" }).click();
    expect(await alertText(page)).toBe("This e-mail address is already used by another account. Nothing was changed.");
    expect((await profileOf(account.sub)).email).toEqual(account.email);
    expect((await profileOf(other.sub)).email).toEqual(other.email);
    expect(await eventsOf(account.sub)).toContainEqual({
      type: "users.validate_email",
      result: "contact_use_violation",
      prms: { attr: "email" },
    });
    await context.close();
  });

  it("refuses a code for another change than the account's own (a state from elsewhere), changing nothing", async () => {
    const { account, context, page } = await signedIn();
    const address = newAddress();
    await page.goto(at("/svc/account"));
    await page.getByLabel("New e-mail address").fill(address);
    await page.getByRole("button", { name: "Change e-mail" }).click();
    await status(page, "A code is on its way");
    await page.locator('form[action="/svc/account/email/confirm"] input[name="state"]').evaluate((input) => {
      (input as unknown as { value: string }).value = "u1.c29tZW9uZS1lbHNl.AAAAAAAAAAAAAAAAAAAAAA";
    });
    await page.getByLabel(`Code sent to ${address}`).fill(lastCode(address));
    await page.getByRole("button", { name: "Confirm e-mail" }).click();
    expect(await alertText(page)).toMatch(/No change waits for this code/);
    expect((await profileOf(account.sub)).email).toEqual(account.email);
    await context.close();
  });

  it("sends a sign-in 11 minutes old to confirm it's you before an e-mail, phone or password change; nothing is sent or stored", async () => {
    const { account, context, page } = await signedIn();
    const before = await credentialOf(account.sub);
    await ageSignIn(account.sub, 11 * 60);
    const address = newAddress();
    await page.goto(at("/svc/account"));
    await page.getByLabel("New e-mail address").fill(address);
    await page.getByRole("button", { name: "Change e-mail" }).click();
    await page.waitForURL(/\/svc\/account\/confirm\?next=profile$/);
    await page.goto(at("/svc/account"));
    await page.getByLabel("New phone number").fill(newPhone().typed);
    await page.getByRole("button", { name: "Change phone" }).click();
    await page.waitForURL(/\/svc\/account\/confirm\?next=profile$/);
    await page.goto(at("/svc/account/password"));
    await page.getByLabel("New password", { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel("Repeat the new password").fill(NEW_PASSWORD);
    await page.getByRole("button", { name: "Change password" }).click();
    await page.waitForURL(/\/svc\/account\/confirm\?next=password$/);
    expect(outbox(address)).toEqual([]);
    const stored = await profileOf(account.sub);
    expect(stored.pending_email).toBeUndefined();
    expect(stored.pending_phone_number).toBeUndefined();
    expect(await credentialOf(account.sub)).toEqual(before);
    // Names are not sensitive: they change without confirming.
    await page.goto(at("/svc/account"));
    await page.getByLabel("Given name").fill("Maria");
    await page.getByRole("button", { name: "Save name" }).click();
    await status(page, "Your name was saved.");
    // Confirmed with the password, the browser is back at the profile and the change goes through.
    await page.getByLabel("New e-mail address").fill(address);
    await page.getByRole("button", { name: "Change e-mail" }).click();
    await page.getByLabel("Your password").fill(PASSWORD);
    await page.getByRole("button", { name: "Confirm", exact: true }).click();
    await page.waitForURL(/\/svc\/account\?done=confirmed$/);
    await page.getByLabel("New e-mail address").fill(address);
    await page.getByRole("button", { name: "Change e-mail" }).click();
    await status(page, "A code is on its way");
    expect(outbox(address)).toHaveLength(1);
    await context.close();
  });
});

describe("the password section", () => {
  it("shows when the password was last changed; a policy violation is listed and changes nothing; a good one is stored, recorded, noticed, and signs in", async () => {
    const { account, context, page } = await signedIn();
    const before = (await credentialOf(account.sub)) as { changedAt: number };
    await page.goto(at("/svc/account/password"));
    const minute = new Date(before.changedAt * 1000).toISOString().replace("T", " ").slice(0, 16);
    expect(await page.getByText(`Your password was last changed on ${minute} (UTC).`).count()).toBe(1);

    await page.getByLabel("New password", { exact: true }).fill("qwerty");
    await page.getByLabel("Repeat the new password").fill("qwerty");
    await page.getByRole("button", { name: "Change password" }).click();
    const refusal = await alertText(page);
    expect(refusal).toContain("The new password does not meet the password rules:");
    expect(refusal).toContain("the password must have at least 8 characters");
    expect(refusal).toContain("the password is one of the most common passwords");
    expect(await credentialOf(account.sub)).toEqual(before);

    await page.getByLabel("New password", { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel("Repeat the new password").fill(`${NEW_PASSWORD}!`);
    await page.getByRole("button", { name: "Change password" }).click();
    expect(await alertText(page)).toMatch(/The two new passwords differ/);
    expect(await credentialOf(account.sub)).toEqual(before);

    await page.getByLabel("New password", { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel("Repeat the new password").fill(NEW_PASSWORD);
    await page.getByRole("button", { name: "Change password" }).click();
    await status(page, /^Your password was changed\.$/);
    const after = (await credentialOf(account.sub)) as { changedAt: number; hash: string };
    expect(after.hash).not.toEqual((before as unknown as { hash: string }).hash);
    expect(after.changedAt).toBeGreaterThanOrEqual(before.changedAt);
    const events = await eventsOf(account.sub);
    expect(events).toContainEqual({ type: "password_change", result: "wrong_values", prms: undefined });
    expect(events).toContainEqual({
      type: "password_change",
      result: "ok",
      prms: { mode: "user", generated: false, resetSessions: false, reauthenticated: true },
    });
    expect(outbox(account.email?.value).map((m) => m.subject)).toContain("Your password was changed");
    // This browser stays signed in; the new password signs in, the old one no longer does.
    await page.goto(at("/svc/account/password"));
    expect(await page.locator("h1").textContent()).toBe("Password");
    const { config, redirectUri } = await relyingParty();
    const old = await fillSignInForm((await startAuthorization(config, redirectUri)).url, account.sub, PASSWORD);
    expect(await alertText(old.page)).toBeTruthy();
    await old.context.close();
    const fresh = await fillSignInForm((await startAuthorization(config, redirectUri)).url, account.sub, NEW_PASSWORD);
    await backAtClient(fresh.page);
    await fresh.context.close();
    await context.close();
  });

  it("keeps the account's other browsers signed in, unless 'Sign out everywhere else' is ticked; this one stays either way", async () => {
    const here = await signedIn();
    const account = here.account;
    const elsewhere = await signedIn({ account });
    const hostedSessions = async () =>
      (await storedItems(account.sub, keys.sessionPrefix)).filter((s) => s.clientId === HOSTED_CLIENT);
    expect(await hostedSessions()).toHaveLength(2);
    const change = async (password: string, signOutOthers: boolean) => {
      await here.page.goto(at("/svc/account/password"));
      await here.page.getByLabel("New password", { exact: true }).fill(password);
      await here.page.getByLabel("Repeat the new password").fill(password);
      if (signOutOthers) await here.page.getByLabel("Sign out everywhere else").check();
      await here.page.getByRole("button", { name: "Change password" }).click();
    };
    const answers = async (context: BrowserContext) => (await context.request.get(at("/svc/account"))).status();

    await change(NEW_PASSWORD, false);
    await status(here.page, /^Your password was changed\.$/);
    expect(await answers(elsewhere.context)).toBe(200);
    expect(await hostedSessions()).toHaveLength(2);

    await change(`${NEW_PASSWORD} again`, true);
    await status(here.page, "you were signed out everywhere else");
    expect(await answers(elsewhere.context)).toBe(401);
    expect(await answers(here.context)).toBe(200);
    const left = await hostedSessions();
    expect(left).toHaveLength(1);
    expect(await eventsOf(account.sub)).toContainEqual({
      type: "password_change",
      result: "ok",
      prms: { mode: "user", generated: false, resetSessions: true, reauthenticated: true },
    });
    await here.context.close();
    await elsewhere.context.close();
  });
});

describe("in Russian", () => {
  it("the profile and password sections answer in Russian, refusals too", async () => {
    const { context, page } = await signedIn({ locale: "ru-RU" });
    await page.goto(at("/svc/account"));
    expect(await page.getAttribute("html", "lang")).toBe("ru");
    expect(await page.locator("h1").textContent()).toBe("Профиль");
    expect(await page.getByLabel("Фамилия").inputValue()).toBe("Ivanov");
    await page.getByLabel("Новый номер телефона").fill("12-34");
    await page.getByRole("button", { name: "Изменить телефон" }).click();
    expect(await alertText(page)).toMatch(/^Это не номер телефона/);
    await page.goto(at("/svc/account/password"));
    expect(await page.locator("h1").textContent()).toBe("Пароль");
    expect(await page.getByText(/Пароль последний раз изменён/).count()).toBe(1);
    await page.getByLabel("Новый пароль", { exact: true }).fill("qwerty");
    await page.getByLabel("Повторите новый пароль").fill("qwerty");
    await page.getByRole("button", { name: "Изменить пароль" }).click();
    expect(await alertText(page)).toContain("не короче 8 символов");
    await context.close();
  });
});

describe.each([
  ["en-US", "en"],
  ["ru-RU", "ru"],
])("axe-core in %s", (locale, lang) => {
  it("the profile (with a change waiting and a refusal) and the password section (with its rules broken) have no serious violation", async () => {
    const signed = await signedIn();
    // The pages' CSP admits no inline script: this context bypasses it to inject axe.
    const context = await browser().newContext({ locale, bypassCSP: true });
    await context.addCookies(await signed.context.cookies());
    await signed.context.close();
    const page = await context.newPage();
    const address = newAddress();
    await page.goto(at("/svc/account"));
    expect(await page.getAttribute("html", "lang")).toBe(lang);
    const found: Record<string, Found[]> = { profile: await seriousViolations(page) };
    await page.locator('input[name="email"]').fill(address);
    await page.locator('form[action="/svc/account/email"] button').click();
    await page.locator('input[name="code"]').fill(wrongOf(lastCode(address)));
    await page.locator('form[action="/svc/account/email/confirm"] button').click();
    await page.getByRole("alert").waitFor();
    found.profileWaiting = await seriousViolations(page);
    await page.goto(at("/svc/account/password"));
    found.password = await seriousViolations(page);
    await page.locator("#new-password").fill("qwerty");
    await page.locator("#repeat-password").fill("qwerty");
    await page.locator('form[action="/svc/account/password"] button').click();
    await page.getByRole("alert").waitFor();
    found.passwordRefused = await seriousViolations(page);
    expect(found).toEqual({ profile: [], profileWaiting: [], password: [], passwordRefused: [] });
    await context.close();
  });
});
