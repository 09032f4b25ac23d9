import { UpdateCommand } from "@aws-sdk/lib-dynamodb";
import * as oidc from "openid-client";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { config } from "../../lib/config";
import { services } from "../../lib/container";
import { documentClient } from "../../lib/document-client";
import type { Account } from "../../lib/domain/accounts/account";
import { HOSTED_CLIENT } from "../../lib/domain/oidc/browser-session";
import { consentId } from "../../lib/store/consents";
import { keys } from "../../lib/store/keys";
import { useAccountConsole } from "../support/account-console";
import { seriousViolations } from "../support/axe";
import { createClient, seedAccount, uniqueId } from "../support/fixtures";
import { PASSWORD } from "../support/hosted-sign-in";
import { signedIn as passwordSignIn } from "../support/login";
import { providerEntry, startTestProvider, type TestProvider, useSettings } from "../support/oauth-provider";
import { storedItems } from "../support/stored";

/**
 * The account console's devices and sessions, connected applications and linked accounts,
 * in chromium (docs/account.md): each change read back from the table, another account's
 * ids refused, and an external provider on loopback for linking (oauth2-mock-server).
 */

const { signedIn, ageSignIn, at, browser, relyingParty, startAuthorization, backAtClient, redeem } =
  await useAccountConsole();

let provider: TestProvider;

beforeAll(async () => {
  provider = await startTestProvider();
  useSettings({ federation: { providers: [providerEntry(provider.url)] } });
});
afterAll(() => provider.stop());

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** The device (ua_id) a browser signed in as: its device cookie. */
async function deviceOf(context: BrowserContext): Promise<string> {
  const cookie = (await context.cookies()).find((c) => c.name === "svc_ua");
  if (!cookie) throw new Error("the browser has no device cookie");
  return cookie.value;
}

const deviceIds = async (sub: string) => (await storedItems(sub, keys.devicePrefix)).map((d) => d.id as string).sort();
const sessionsOn = async (sub: string, uaId: string) =>
  (await storedItems(sub, keys.sessionPrefix)).filter((s) => s.uaId === uaId);
const eventTypes = async (sub: string) => (await storedItems(sub, "EVENT#")).map((e) => e.type);

/** The CSRF token the page's forms carry, for a form this test posts itself. */
const csrfOf = (page: Page) => page.locator('input[name="csrf"]').first().inputValue();

async function seedLink(sub: string, fpName = "mock", userName?: string) {
  const sid = uniqueId("ext-");
  await services().federation.link({ sub, fpType: "oidc", fpName, sid, ...(userName && { userName }) }, nowSeconds());
  return sid;
}

/** An application's consent and a device of `account`, by a password-grant sign-in to it. */
async function apiSignIn(account: Account) {
  const client = await createClient(["svc_api_user"]);
  await passwordSignIn(client, { scope: "svc_api_user", username: account.sub, password: PASSWORD });
  return client;
}

describe("the account console's devices and sessions", () => {
  it("lists two browsers' devices newest first, marks this one, and signs the other out: its device and sessions are gone, its console answers 401", async () => {
    const first = await signedIn();
    const sub = first.account.sub;
    const second = await signedIn({ account: first.account });
    const [mine, other] = [await deviceOf(first.context), await deviceOf(second.context)];
    expect(mine).not.toBe(other);
    // The first browser's device was used an hour before the second's.
    await documentClient().send(
      new UpdateCommand({
        TableName: config().tableName,
        Key: keys.device(sub, mine),
        UpdateExpression: "SET lastUsed = :t",
        ExpressionAttributeValues: { ":t": nowSeconds() - 3600 },
      }),
    );
    expect(await sessionsOn(sub, other)).not.toEqual([]);

    const { page } = first;
    await page.goto(at("/svc/account/devices"));
    const items = page.locator("main ul.items > li");
    expect(await items.count()).toBe(2);
    // Newest first: the other browser's device, then this one, marked.
    expect(await items.nth(0).getAttribute("aria-current")).toBeNull();
    expect(await items.nth(1).getAttribute("aria-current")).toBe("true");
    expect(await items.nth(1).textContent()).toContain("This device");
    expect(await items.nth(0).textContent()).not.toContain("This device");
    expect(await items.nth(0).textContent()).toMatch(/Last used \d{4}-\d\d-\d\d \d\d:\d\d UTC from /);

    await items
      .nth(0)
      .getByRole("button", { name: /^Sign out / })
      .click();
    await page.getByRole("status").filter({ hasText: "The device was signed out." }).waitFor();
    expect(await deviceIds(sub)).toEqual([mine]);
    expect(await sessionsOn(sub, other)).toEqual([]);
    expect(await sessionsOn(sub, mine)).not.toEqual([]);
    expect(await page.locator("main ul.items > li").count()).toBe(1);
    expect(await eventTypes(sub)).toContain("device_delete");

    const answer = await second.page.goto(at("/svc/account/devices"));
    expect(answer?.status()).toBe(401);
    await first.context.close();
    await second.context.close();
  });

  it("signs out everywhere else, keeping this device's sessions and every device remembered", async () => {
    const first = await signedIn();
    const sub = first.account.sub;
    const second = await signedIn({ account: first.account });
    // A third device: an application's password-grant sign-in.
    await apiSignIn(first.account);
    const [mine, other] = [await deviceOf(first.context), await deviceOf(second.context)];
    const devicesBefore = await deviceIds(sub);
    expect(devicesBefore).toHaveLength(3);

    await first.page.goto(at("/svc/account/devices"));
    await first.page.getByRole("button", { name: "Sign out everywhere else" }).click();
    await first.page.getByRole("status").filter({ hasText: "You were signed out everywhere else." }).waitFor();
    const sessions = await storedItems(sub, keys.sessionPrefix);
    expect(sessions.length).toBeGreaterThan(0);
    expect(sessions.every((s) => s.uaId === mine)).toBe(true);
    expect(await deviceIds(sub)).toEqual(devicesBefore);
    expect(await eventTypes(sub)).toContain("sessions_reset");

    expect((await second.page.goto(at("/svc/account/devices")))?.status()).toBe(401);
    expect((await first.page.goto(at("/svc/account/devices")))?.status()).toBe(200);
    expect(await sessionsOn(sub, other)).toEqual([]);
    await first.context.close();
    await second.context.close();
  });

  it("signing out this device ends this browser's session too: the page says signed out and the console answers 401", async () => {
    const { account, context, page } = await signedIn();
    const mine = await deviceOf(context);
    await page.goto(at("/svc/account/devices"));
    await page.getByRole("button", { name: "Sign out of this device" }).click();
    await page.getByText("You are signed out.").waitFor();
    expect(await storedItems(account.sub, keys.sessionPrefix)).toEqual([]);
    expect(await deviceIds(account.sub)).not.toContain(mine);
    expect((await context.cookies()).some((c) => c.name === "svc_sso")).toBe(false);
    expect((await page.goto(at("/svc/account/devices")))?.status()).toBe(401);
    await context.close();
  });
});

describe("the account console's connected applications", () => {
  it("lists an application the user allowed, with its name and the scopes in words; removing access deletes the consent and its refresh token stops working", async () => {
    const { account, context, page } = await signedIn();
    const party = await relyingParty({ registeredAs: "Photo Album" });
    const started = await startAuthorization(party.config, party.redirectUri);
    await page.goto(started.url.toString());
    await page.getByRole("button", { name: "Allow" }).click();
    const tokens = await redeem(party.config, await backAtClient(page), started);
    expect(tokens.refresh_token).toEqual(expect.any(String));
    expect(await storedItems(account.sub, keys.consentPrefix)).toHaveLength(1);

    await page.goto(at("/svc/account/apps"));
    const app = page.locator("main ul.items > li");
    const host = new URL(party.redirectUri).host;
    expect(await app.locator("strong").textContent()).toBe(`Photo Album (${host})`);
    expect(await app.getByRole("listitem").allTextContents()).toEqual(
      expect.arrayContaining([
        "know who you are",
        "see your name",
        "see your e-mail address",
        "use the permission svc_api_user",
      ]),
    );

    await page.getByRole("button", { name: `Remove access for Photo Album (${host})` }).click();
    await page.getByRole("status").filter({ hasText: "The application's access was removed." }).waitFor();
    expect(await storedItems(account.sub, keys.consentPrefix)).toEqual([]);
    expect((await storedItems(account.sub, keys.sessionPrefix)).filter((s) => s.clientId === party.clientId)).toEqual(
      [],
    );
    await expect(oidc.refreshTokenGrant(party.config, String(tokens.refresh_token))).rejects.toMatchObject({
      error: "invalid_grant",
    });
    // This browser is still signed in, and the withdrawal is a security event.
    expect((await page.goto(at("/svc/account/apps")))?.status()).toBe(200);
    expect(await page.getByText("You have not allowed any application").count()).toBe(1);
    expect(await eventTypes(account.sub)).toContain("consent_withdraw");
    await context.close();
  });
});

describe("the account console's linked accounts", () => {
  it("lists a linked account and unlinks it; a sign-in 11 minutes old confirms it's you first", async () => {
    const { account, context, page } = await signedIn();
    const sid = await seedLink(account.sub, "mock", "Anna at mock");
    await page.goto(at("/svc/account/linked"));
    const item = page.locator("main ul.items > li");
    expect(await item.textContent()).toContain("Account Anna at mock");
    // Linked already: no offer to link another mock account.
    expect(await page.getByRole("button", { name: "Link a mock account" }).count()).toBe(0);

    await ageSignIn(account.sub, 11 * 60);
    await page.getByRole("button", { name: "Unlink mock: Anna at mock" }).click();
    await page.waitForURL(/\/svc\/account\/confirm\?next=linked/);
    expect(await services().federation.listLinks(account.sub)).toHaveLength(1);
    await page.getByLabel("Your password").fill(PASSWORD);
    await page.getByRole("button", { name: "Confirm", exact: true }).click();
    await page.waitForURL(/\/svc\/account\/linked\?done=confirmed/);
    await page.getByRole("button", { name: "Unlink mock: Anna at mock" }).click();
    await page.getByRole("status").filter({ hasText: "The account was unlinked." }).waitFor();
    expect(await services().federation.listLinks(account.sub)).toEqual([]);
    expect(await services().federation.ownerOf("oidc", "mock", sid)).toBeUndefined();
    expect(await eventTypes(account.sub)).toContain("federation.unlink");
    await context.close();
  });

  it("links another account through the provider and comes back to the section", async () => {
    const { account, context, page } = await signedIn();
    const sid = uniqueId("ext-");
    provider.actAs(sid, "Anna at the provider");
    await page.goto(at("/svc/account/linked"));
    expect(await page.getByText("No account at another service is linked.").count()).toBe(1);
    await page.getByRole("button", { name: "Link a mock account" }).click();
    await page.waitForURL(/\/svc\/account\/linked\?done=linked$/);
    await page.getByRole("status").filter({ hasText: "The account was linked." }).waitFor();
    expect(await services().federation.listLinks(account.sub)).toEqual([
      expect.objectContaining({ fpType: "oidc", fpName: "mock", sid }),
    ]);
    expect(await page.locator("main ul.items > li").textContent()).toContain("mock");
    // The provider saw PKCE and the bind flow's own callback.
    const exchange = provider.tokenRequests.at(-1);
    expect(exchange?.redirect_uri).toMatch(/\/svc\/api\/v2\/users\/current\/fa\/callback$/);
    expect(exchange?.code_verifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await eventTypes(account.sub)).toContain("federation.bind");

    // The same provider account for another user: the bind comes back saying so, and links nothing.
    const other = await signedIn();
    await other.page.goto(at("/svc/account/linked"));
    await other.page.getByRole("button", { name: "Link a mock account" }).click();
    await other.page.waitForURL(/\/svc\/account\/linked\?.*error=already_linked/);
    expect(await other.page.getByRole("alert").textContent()).toMatch(/already linked to another account/);
    expect(await services().federation.listLinks(other.account.sub)).toEqual([]);
    await context.close();
    await other.context.close();
  });
});

describe("another account's ids posted to the console", () => {
  it("refuses another account's device, consent and link, and changes nothing of theirs", async () => {
    const victim = await seedAccount({}, PASSWORD);
    const client = await apiSignIn(victim);
    const victimSid = await seedLink(victim.sub);
    const [victimDevice] = await deviceIds(victim.sub);
    const before = {
      devices: await deviceIds(victim.sub),
      sessions: (await storedItems(victim.sub, keys.sessionPrefix)).length,
      consents: await storedItems(victim.sub, keys.consentPrefix),
      links: await services().federation.listLinks(victim.sub),
    };
    expect(before.consents).toHaveLength(1);

    const { account, context, page } = await signedIn();
    await page.goto(at("/svc/account/devices"));
    const csrf = await csrfOf(page);
    // Playwright's request context sends no Accept-Language of its own.
    const headers = { "accept-language": "en" };
    const posted = [
      page.request.post(at("/svc/account/devices/sign-out"), { form: { csrf, id: victimDevice }, headers }),
      page.request.post(at("/svc/account/apps/remove"), { form: { csrf, id: consentId(client.clientId) }, headers }),
      page.request.post(at("/svc/account/linked/unlink"), {
        form: { csrf, fpType: "oidc", fpName: "mock", sid: victimSid },
        headers,
      }),
    ];
    const answers = await Promise.all(posted);
    expect(answers.map((a) => a.status())).toEqual([400, 400, 400]);
    expect(await answers[0].text()).toContain("That device is not one of yours");
    expect(await answers[1].text()).toContain("That application has no access to your account");
    expect(await answers[2].text()).toContain("That linked account is not one of yours");

    expect({
      devices: await deviceIds(victim.sub),
      sessions: (await storedItems(victim.sub, keys.sessionPrefix)).length,
      consents: await storedItems(victim.sub, keys.consentPrefix),
      links: await services().federation.listLinks(victim.sub),
    }).toEqual(before);
    // The attempt leaves this browser signed in, and nothing in the other account's trail.
    expect((await storedItems(account.sub, keys.sessionPrefix)).some((s) => s.clientId === HOSTED_CLIENT)).toBe(true);
    expect(await eventTypes(victim.sub)).not.toEqual(
      expect.arrayContaining([expect.stringMatching(/device_delete|consent_withdraw|federation\.unlink/)]),
    );
    await context.close();
  });
});

describe.each([
  ["en-US", "en", "Devices and sessions"],
  ["ru-RU", "ru", "Устройства и сеансы"],
] as const)("the sections in %s", (locale, lang, devicesTitle) => {
  it("have no serious or critical axe-core violation", async () => {
    const signed = await signedIn({ locale });
    await apiSignIn(signed.account);
    // A link to a provider no longer configured, so the page both lists a link and offers one.
    await seedLink(signed.account.sub, "legacy");
    const context = await browser().newContext({ locale, bypassCSP: true });
    await context.addCookies(await signed.context.cookies());
    await signed.context.close();
    const page = await context.newPage();
    const found: Record<string, unknown> = {};
    for (const path of ["/svc/account/devices", "/svc/account/apps", "/svc/account/linked"]) {
      await page.goto(at(path));
      expect(await page.getAttribute("html", "lang")).toBe(lang);
      found[path] = await seriousViolations(page);
    }
    await page.goto(at("/svc/account/devices"));
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe(devicesTitle);
    await context.close();
    expect(found).toEqual({ "/svc/account/devices": [], "/svc/account/apps": [], "/svc/account/linked": [] });
  });
});
