import { readFileSync } from "node:fs";
import { QueryCommand } from "@aws-sdk/lib-dynamodb";
import type { BrowserContext, Page } from "playwright-core";
import { afterEach, describe, expect, it } from "vitest";
import { config } from "../../lib/config";
import { accountDeletionDeps, services } from "../../lib/container";
import { documentClient } from "../../lib/document-client";
import { deleteDueAccounts } from "../../lib/domain/accounts/deletion";
import { keys } from "../../lib/store/keys";
import { useAccountConsole } from "../support/account-console";
import { seriousViolations } from "../support/axe";
import { seedAccount } from "../support/fixtures";
import { PASSWORD } from "../support/hosted-sign-in";
import { useSettings } from "../support/oauth-provider";
import { storedItem, storedItems } from "../support/stored";
import { totpCode } from "../support/totp-codes";
import { virtualAuthenticator } from "../support/virtual-authenticator";

/**
 * The account console's recent activity and "Your data" sections, in chromium
 * (docs/account/activity.md, docs/account/data.md): events in words in both languages,
 * "This wasn't me", the download and the deletion of the account, each read back from the table.
 */

const { signedIn, ageSignIn, at, browser, relyingParty, startAuthorization, fillSignInForm, alertText } =
  await useAccountConsole();

afterEach(() => useSettings({}));

/** The activity list's entries, top to bottom. */
const entries = (page: Page) => page.locator("main ul.items > li strong").allTextContents();

/** A refused sign-in of `login` through the hosted page, as a person mistyping the password. */
async function failedSignIn(login: string) {
  const { config, redirectUri } = await relyingParty();
  const started = await startAuthorization(config, redirectUri);
  const { context, page } = await fillSignInForm(started.url, login, "not the password");
  expect(await alertText(page)).toMatch(/wrong/);
  await context.close();
}

/** Adds a passkey through the console's sign-in methods. */
async function addPasskey(context: BrowserContext, page: Page, name: string) {
  await virtualAuthenticator(context, page);
  await page.goto(at("/svc/account/sign-in-methods"));
  await page.getByLabel("Name of the new passkey").fill(name);
  await page.getByRole("button", { name: "Add a passkey" }).click();
  await page.getByRole("status").filter({ hasText: "The passkey was added." }).waitFor();
}

/** Every item of the account's partition, read strongly consistent. */
async function partition(sub: string): Promise<Record<string, unknown>[]> {
  const { Items } = await documentClient().send(
    new QueryCommand({
      TableName: config().tableName,
      KeyConditionExpression: "PK = :pk",
      ExpressionAttributeValues: { ":pk": keys.userPartition(sub) },
      ConsistentRead: true,
    }),
  );
  return Items ?? [];
}

/** Every key of a JSON value, however deep. */
function keysOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(keysOf);
  if (value === null || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([key, inner]) => [key, ...keysOf(inner)]);
}

describe("recent activity", () => {
  it("lists a failed sign-in, a sign-in and sign-in method changes in words, newest first, with IP and browser, in en and ru", async () => {
    const account = await seedAccount({}, PASSWORD);
    await failedSignIn(account.sub);
    // Sign-in events carry whole seconds: the next one must not share the failure's.
    await new Promise((r) => setTimeout(r, 1100));
    const { context, page } = await signedIn({ account });
    await addPasskey(context, page, "laptop");
    await page.getByRole("button", { name: "Create new recovery codes" }).click();
    await page.getByText("Save these codes now").waitFor();

    await page.goto(at("/svc/account/activity"));
    expect(await page.locator('nav a[aria-current="page"]').textContent()).toBe("Recent activity");
    const shown = await entries(page);
    const where = (text: string) => shown.indexOf(text);
    expect(where("New recovery codes created")).toBeGreaterThanOrEqual(0);
    expect(where("New recovery codes created")).toBeLessThan(where("Passkey added"));
    expect(where("Passkey added")).toBeLessThan(where("Signed in with your password"));
    expect(where("Signed in with your password")).toBeLessThan(where("Failed sign-in: wrong password"));
    // The address and browser the events recorded, as the devices section parses them.
    const failure = (await storedItems(account.sub, "EVENT#")).find((e) => e.result === "invalid_credential");
    const failedItem = page.locator("main ul.items > li").filter({ hasText: "Failed sign-in: wrong password" });
    expect(await failedItem.locator("p.note").textContent()).toContain(`IP ${failure?.ip}`);
    expect(await failedItem.locator("p.note").textContent()).toMatch(/Chrome.* \d+ on Linux/);
    expect(await failedItem.locator("time").getAttribute("datetime")).toBe(
      new Date(failure?.ts as number).toISOString(),
    );
    await context.close();

    // Again whole seconds: the Russian sign-in must come after the recovery codes' event.
    await new Promise((r) => setTimeout(r, 1100));
    const ru = await signedIn({ account, locale: "ru-RU" });
    await ru.page.goto(at("/svc/account/activity"));
    const russian = await entries(ru.page);
    expect(russian[0]).toBe("Вход по паролю");
    expect(russian).toEqual(
      expect.arrayContaining([
        "Созданы новые резервные коды",
        "Ключ доступа добавлен",
        "Неудачная попытка входа: неверный пароль",
      ]),
    );
    expect(await ru.page.getByRole("button", { name: "Это был не я" }).count()).toBe(1);
    await ru.context.close();
  });

  it("shows 20 events a page; Show older continues below the last one shown; older than 30 days and unknown types as they should", async () => {
    const { account, context, page } = await signedIn();
    const now = Date.now();
    for (let i = 1; i <= 24; i++) {
      await services().events.record({
        sbj: account.sub,
        ts: now - i * 60_000,
        type: i === 24 ? "profile_colour_change" : "passkey_rename",
        cId: "svc-hosted",
        ip: "203.0.113.7",
        result: "ok",
      });
    }
    await services().events.record({
      sbj: account.sub,
      ts: now - 31 * 86_400_000,
      type: "passkey_delete",
      cId: "svc-hosted",
      result: "ok",
    });
    await page.goto(at("/svc/account/activity"));
    const first = await page
      .locator("main ul.items > li time")
      .evaluateAll((els) => els.map((el) => el.getAttribute("datetime") ?? ""));
    expect(first).toHaveLength(20);
    expect([...first].sort().reverse()).toEqual(first);
    await page.getByRole("link", { name: "Show older activity" }).click();
    await page.waitForURL(/before=\d+/);
    const second = await page
      .locator("main ul.items > li time")
      .evaluateAll((els) => els.map((el) => el.getAttribute("datetime") ?? ""));
    // The sign-in and 24 seeded events: 25 in all, none twice, none from 31 days ago.
    expect(second.length).toBe(5);
    expect(new Set([...first, ...second]).size).toBe(25);
    expect(second.every((t) => t < first[19])).toBe(true);
    expect(await entries(page)).toContain("Account change (profile_colour_change)");
    expect(await page.getByText("Passkey removed").count()).toBe(0);
    expect(await page.getByRole("link", { name: "Show older activity" }).count()).toBe(0);
    expect(await page.getByRole("link", { name: "Back to the newest activity" }).count()).toBe(1);
    await context.close();
  });

  it("This wasn't me ends every session, this browser's too, requires a new password, and says what to do next", async () => {
    const { account, context, page } = await signedIn();
    const other = await signedIn({ account });
    expect((await storedItems(account.sub, keys.sessionPrefix)).length).toBeGreaterThanOrEqual(2);
    await page.goto(at("/svc/account/activity"));
    await page.getByRole("button", { name: "This wasn't me" }).click();
    await page.getByRole("heading", { name: "You are signed out everywhere" }).waitFor();
    expect(await page.getByRole("status").textContent()).toMatch(/ended every session/);
    expect(await page.locator("main").textContent()).toMatch(/Forgot your password/);

    expect(await storedItems(account.sub, keys.sessionPrefix)).toEqual([]);
    expect((await storedItems(account.sub, "PROFILE"))[0].needPasswordChange).toBe(true);
    const reported = (await storedItems(account.sub, "EVENT#")).find((e) => e.type === "not_me");
    expect(reported).toMatchObject({ result: "ok", prms: { needPasswordChange: true } });
    // Both browsers are signed out: this one's cookie is cleared, the other's session is gone.
    expect((await page.goto(at("/svc/account/activity")))?.status()).toBe(401);
    expect((await other.page.goto(at("/svc/account/activity")))?.status()).toBe(401);
    await context.close();
    await other.context.close();

    // The next password sign-in asks for a new password first.
    const { config, redirectUri } = await relyingParty();
    const started = await startAuthorization(config, redirectUri);
    const again = await fillSignInForm(started.url, account.sub);
    await again.page.getByText("Your password must be changed").waitFor();
    await again.context.close();
  });
});

describe("your data", () => {
  it("downloads everything held about the account as JSON, with the passkey's name and no secret", async () => {
    const { account, context, page } = await signedIn();
    await addPasskey(context, page, "work laptop");
    await page.getByRole("button", { name: "Set up an authenticator app" }).click();
    const secret = (await page.locator("main code").textContent()) ?? "";
    await page.getByLabel("Name of the app (optional)").fill("phone app");
    await page.getByLabel("Code from the app").fill(totpCode(secret));
    await page.getByRole("button", { name: "Turn on" }).click();
    await page.getByRole("status").filter({ hasText: "The authenticator app is on." }).waitFor();
    await page.getByRole("button", { name: "Create new recovery codes" }).click();
    const codes = await page.locator("ol.codes li").allTextContents();
    await services().properties.replace(account.sub, { "ui.theme": "dark" }, 0);

    await page.goto(at("/svc/account/data"));
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("link", { name: "Download your data (JSON)" }).click(),
    ]);
    const today = new Date().toISOString().slice(0, 10);
    expect(download.suggestedFilename()).toBe(`account-${today}.json`);
    const text = readFileSync((await download.path()) as string, "utf8");
    const exported = JSON.parse(text);

    expect(exported.account).toMatchObject({
      sub: account.sub,
      given_name: account.given_name,
      email: { value: account.email?.value, verified: true },
    });
    expect(exported.properties).toEqual({ "ui.theme": "dark" });
    expect(exported.passkeys).toMatchObject([{ name: "work laptop" }]);
    expect(exported.authenticatorApps).toMatchObject([{ name: "phone app", digits: 6 }]);
    expect(exported.recoveryCodes.remaining).toBe(10);
    expect(exported.devices.length).toBeGreaterThan(0);
    expect(exported.sessions.length).toBeGreaterThan(0);
    expect(exported.securityEvents.events.map((e: { type: string }) => e.type)).toEqual(
      expect.arrayContaining(["login", "passkey_add", "totp_attach"]),
    );

    // No key anywhere names a secret, and no stored secret's value appears.
    const secretKey = /hash|secret|seed|digest|salt|answer|token|counter|codes$/i;
    expect(keysOf(exported).filter((key) => secretKey.test(key) && key !== "recoveryCodes")).toEqual([]);
    expect(text).not.toContain(secret);
    for (const code of codes) expect(text).not.toContain(code);
    const credential = (await storedItems(account.sub, "CRED#password"))[0];
    expect(text).not.toContain(credential.hash as string);
    for (const session of await storedItems(account.sub, keys.sessionPrefix)) {
      expect(text).not.toContain(session.secretHash as string);
    }
    for (const generator of await storedItems(account.sub, keys.totpPrefix)) {
      expect(text).not.toContain(generator.secret as string);
    }

    // The same answer to a request with the browser's cookies: no caching, an attachment.
    const answer = await page.request.get(at("/svc/account/data/export"));
    expect(answer.headers()["cache-control"]).toBe("no-store");
    expect(answer.headers()["content-disposition"]).toBe(`attachment; filename="account-${today}.json"`);
    await context.close();
    const signedOut = await browser().newContext();
    expect((await signedOut.request.get(at("/svc/account/data/export"))).status()).toBe(401);
    await signedOut.close();
  });

  it("deletes the account after a sign-in 11 minutes old is confirmed: profile, credentials and claims gone, the e-mail free again", async () => {
    const { account, context, page } = await signedIn();
    await addPasskey(context, page, "laptop");
    const passkey = (await storedItems(account.sub, keys.passkeyPrefix))[0];
    // A membership and rights both ways: each has a mirror in another partition.
    const lead = await seedAccount();
    await services().groups.importMembers("org", "acme", [account.sub], 1);
    const user = (id: string) => ({ kind: "user" as const, id });
    await services().rights.importGrants([
      { subject: user(account.sub), object: user(lead.sub), right: "change_password", tags: ["t"] },
      { subject: user(lead.sub), object: user(account.sub), right: "change_password", tags: ["t"] },
    ]);
    expect(await storedItem(keys.groupMember("org", "acme", account.sub))).toBeDefined();
    expect(await partition(lead.sub)).toHaveLength(3);
    await ageSignIn(account.sub, 11 * 60);
    await page.goto(at("/svc/account/data"));
    await page.getByLabel("I understand that my account and its data will be deleted").check();
    await page.getByRole("button", { name: "Delete my account" }).click();
    await page.waitForURL(/\/svc\/account\/confirm\?next=data/);
    expect(await storedItems(account.sub, "PROFILE")).toHaveLength(1);
    await page.getByLabel("Your password").fill(PASSWORD);
    await page.getByRole("button", { name: "Confirm", exact: true }).click();
    await page.waitForURL(/\/svc\/account\/data\?done=confirmed/);

    await page.getByLabel("I understand that my account and its data will be deleted").check();
    await page.getByRole("button", { name: "Delete my account" }).click();
    await page.getByRole("heading", { name: "Your account was deleted" }).waitFor();

    // Only the deletion's own event stays, until the audit retention ends.
    const left = await partition(account.sub);
    expect(left.map((item) => item.entity)).toEqual(["security-event"]);
    expect(left[0]).toMatchObject({ type: "account_delete", result: "ok" });
    expect(await storedItem(keys.uniqueEmail(account.email?.value as string))).toBeUndefined();
    expect(await storedItem(keys.uniquePhone(account.phone_number?.value as string))).toBeUndefined();
    expect(await storedItem(keys.uniquePasskey(passkey.id as string))).toBeUndefined();
    expect(await storedItem(keys.groupMember("org", "acme", account.sub))).toBeUndefined();
    // The other account keeps its profile alone: the right it held and the one held over it are gone.
    expect((await partition(lead.sub)).map((item) => item.SK)).toEqual(["PROFILE"]);
    expect((await page.goto(at("/svc/account/data")))?.status()).toBe(401);
    await context.close();

    const successor = await seedAccount({ email: account.email, phone_number: account.phone_number });
    expect((await storedItem(keys.uniqueEmail(account.email?.value as string)))?.owner).toBe(successor.sub);
  });

  it("refuses a deletion without the box ticked, deleting nothing", async () => {
    const { account, context, page } = await signedIn();
    await page.goto(at("/svc/account/data"));
    const csrf = (await page.locator('input[name="csrf"]').first().getAttribute("value")) ?? "";
    const answer = await page.request.post(at("/svc/account/data/delete"), {
      form: { csrf },
      headers: { "accept-language": "en" },
    });
    expect(answer.status()).toBe(400);
    expect(await answer.text()).toContain("Tick the box");
    expect(await storedItems(account.sub, "PROFILE")).toHaveLength(1);
    await context.close();
  });

  it("with a grace period, locks the account and ends its sessions; the daily job deletes it when due, and an unlock cancels", async () => {
    useSettings({ accountDeletion: { graceDays: 7 } });
    const { account, context, page } = await signedIn();
    await page.goto(at("/svc/account/data"));
    expect(await page.locator("main").textContent()).toContain("deleted after 7 days");
    await page.getByLabel("I understand that my account and its data will be deleted").check();
    await page.getByRole("button", { name: "Delete my account" }).click();
    await page.getByRole("heading", { name: "Your account will be deleted" }).waitFor();
    const [profile] = await storedItems(account.sub, "PROFILE");
    const now = Math.floor(Date.now() / 1000);
    expect(profile.locked).toBe(true);
    expect(Math.abs((profile.deletionScheduledAt as number) - (now + 7 * 86_400))).toBeLessThan(60);
    expect(await storedItems(account.sub, keys.sessionPrefix)).toEqual([]);
    expect((await storedItems(account.sub, "EVENT#")).map((e) => e.type)).toContain("account_delete_scheduled");
    await context.close();

    // Signing in meanwhile is refused: the account is locked.
    const { config, redirectUri } = await relyingParty();
    const started = await startAuthorization(config, redirectUri);
    const refused = await fillSignInForm(started.url, account.sub);
    expect(await alertText(refused.page)).toMatch(/not possible/);
    await refused.context.close();

    // Another account waiting, which an operator unlocks: the job cancels its deletion.
    const kept = await seedAccount({}, PASSWORD);
    await accountDeletionDeps().data.scheduleDeletion(kept.sub, now + 86_400, now, []);
    await services().accounts.update(kept.sub, { set: { locked: false }, remove: [] });

    // Not due yet: nothing happens to either.
    await deleteDueAccounts(accountDeletionDeps(), now + 3_600);
    expect(await storedItems(account.sub, "PROFILE")).toHaveLength(1);
    const result = await deleteDueAccounts(accountDeletionDeps(), now + 8 * 86_400);
    expect(result.deleted).toBeGreaterThanOrEqual(1);
    expect(result.cancelled).toBeGreaterThanOrEqual(1);
    expect(await storedItems(account.sub, "PROFILE")).toEqual([]);
    expect(await storedItem(keys.uniqueEmail(account.email?.value as string))).toBeUndefined();
    const [stays] = await storedItems(kept.sub, "PROFILE");
    expect(stays).toMatchObject({ locked: false });
    expect(stays.deletionScheduledAt).toBeUndefined();
    expect(stays.GSI1PK).toBeUndefined();
  });
});

describe.each([
  ["en-US", "en"],
  ["ru-RU", "ru"],
] as const)("the activity and data sections in %s", (locale, lang) => {
  it("have no serious accessibility violation, nor the page after This wasn't me", async () => {
    const { context: signedInContext } = await signedIn({ locale });
    const context = await browser().newContext({ locale, bypassCSP: true });
    await context.addCookies(await signedInContext.cookies());
    await signedInContext.close();
    const page = await context.newPage();
    for (const path of ["/svc/account/activity", "/svc/account/data"]) {
      await page.goto(at(path));
      expect(await page.getAttribute("html", "lang")).toBe(lang);
      expect(await seriousViolations(page), path).toEqual([]);
    }
    await page.goto(at("/svc/account/activity"));
    await page.locator('form[action="/svc/account/activity/not-me"] button').click();
    await page.locator("h1").waitFor();
    expect(await page.getByRole("status").count()).toBe(1);
    expect(await seriousViolations(page), "not-me").toEqual([]);
    await context.close();
  });
});
