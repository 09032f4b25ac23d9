import { mkdirSync } from "node:fs";
import { join as joinPath } from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it, vi } from "vitest";
import { services } from "../../lib/container";
import { keys } from "../../lib/store/keys";
import { grantKey } from "../../lib/store/rights";
import { seriousViolations } from "../support/axe";
import { seedAccount, uniqueId } from "../support/fixtures";
import { PASSWORD, useHostedSignIn } from "../support/hosted-sign-in";
import { orgWithAdmin } from "../support/organizations";
import { outbox } from "../support/outbox";
import { request } from "../support/requests";
import { storedItem } from "../support/stored";

/**
 * Organization invitations on the hosted pages (docs/organizations.md#invitations): the link
 * from the outbox opened in chromium, accepted by a person who registers there (the address
 * confirmed by the link) and by an existing account that signs in.
 */

const { browser } = await useHostedSignIn();

vi.setConfig({ testTimeout: 60_000 });

const NEW_PASSWORD = "a long new passphrase for the invitee";
const role = (sub: string, orgId: string, right: string) => ({
  subject: { kind: "user" as const, id: sub },
  object: { kind: "grps" as const, id: orgId, profile: "org" },
  right,
});

/** Invites `email` and answers the link of the message it was sent. */
async function invited(orgId: string, token: string, email: string, language: "ru" | "en") {
  const answer = await request("groups", "events/orgs/invite.json", {
    params: { orgId },
    body: { email, roles: ["SYS_MON"], language },
    authorization: token,
  });
  expect(answer.statusCode, answer.body).toBe(201);
  const link = outbox(email)
    .at(-1)
    ?.text.match(/\S+\/oauth\/invitation\?token=[A-Za-z0-9_-]+/)?.[0];
  expect(link).toBeDefined();
  return link as string;
}

/** `npm run screenshots` keeps the invitation page's picture for docs/organizations.md. */
async function picture(page: Page, name: string) {
  const folder = process.env.SVC_SCREENSHOTS;
  if (!folder) return;
  mkdirSync(folder, { recursive: true });
  await page.screenshot({ path: joinPath(folder, `${name}.png`) });
}

/** A fresh browser in `lang`; axe-core is injected, so the page's CSP is bypassed here only. */
async function openLink(link: string, lang: "ru" | "en") {
  const context = await browser().newContext({ locale: lang === "ru" ? "ru-RU" : "en-US", bypassCSP: true });
  const page = await context.newPage();
  const response = await page.goto(link);
  return { context, page, response };
}

async function expectMember(orgId: string, sub: string) {
  expect(await storedItem(keys.groupMember("org", orgId, sub))).toMatchObject({ sub });
  expect(await storedItem(keys.membership(sub, "org", orgId))).toBeDefined();
  expect(await storedItem(grantKey(role(sub, orgId, "SYS_MON")))).toMatchObject({ tags: new Set(["org"]) });
}

describe("an invitation's link in the browser", () => {
  it("when a new person follows it (en), the page names the organization, the registration needs no code for the invited address, and the new account is a member with the roles", async () => {
    const { orgId, token } = await orgWithAdmin("Acme Ltd");
    const email = `${uniqueId("newcomer")}@example.com`;
    const link = await invited(orgId, token, email, "en");
    const { context, page, response } = await openLink(link, "en");
    expect(response?.status()).toBe(200);
    await page.getByText("Acme Ltd invites you to join the organization.").waitFor();
    expect(await page.getByText(`The invitation was sent to ${email}`).count()).toBe(1);
    expect(await seriousViolations(page)).toEqual([]);
    // The page's own CSP: no inline scripts or styles allowed.
    const csp = response?.headers()["content-security-policy"] ?? "";
    expect(csp).toContain("default-src");
    expect(csp).not.toContain("unsafe-inline");
    await picture(page, "invitation");

    // By keyboard: the registration link is reached with Tab and followed with Enter.
    const register = page.getByRole("link", { name: "Create an account" });
    await register.focus();
    await page.keyboard.press("Enter");
    await page.getByLabel(/first name/i).waitFor();
    expect(await page.getByLabel(/e-mail/i).inputValue()).toBe(email);
    await page.getByLabel(/first name/i).fill("Anna");
    await page.getByLabel(/^password$/i).fill(NEW_PASSWORD);
    await page.getByRole("button", { name: /create account/i }).click();
    await page.getByText("You joined Acme Ltd.").waitFor();

    const owner = (await storedItem(keys.uniqueEmail(email)))?.owner as string;
    expect(owner).toBeTruthy();
    const account = await services().accounts.get(owner);
    expect(account?.email).toMatchObject({ value: email, verified: true });
    await expectMember(orgId, owner);
    // No code round trip: the only message to the address is the invitation.
    expect(outbox(email)).toHaveLength(1);
    // Single use: the link now says it is no longer valid.
    const again = await page.goto(link);
    expect(again?.status()).toBe(410);
    await page.getByText(/no longer valid/).waitFor();
    await context.close();
  });

  it("when an existing account follows it (ru), signs in and joins; another account is refused and the invitation stays", async () => {
    const { orgId, token } = await orgWithAdmin("Ромашка");
    const email = `${uniqueId("member")}@example.com`;
    const existing = await seedAccount({ email: { value: email, verified: true } }, PASSWORD);
    const stranger = await seedAccount({}, PASSWORD);
    const link = await invited(orgId, token, email, "ru");

    // Someone else with the link: signs in, and is told the invitation is for another address.
    const other = await openLink(link, "ru");
    await other.page.getByText("Ромашка приглашает вас в организацию.").waitFor();
    await other.page.getByRole("button", { name: "Войти и присоединиться" }).click();
    await other.page.getByLabel(/^Логин/).fill(stranger.email?.value as string);
    await other.page.getByLabel(/^Пароль$/).fill(PASSWORD);
    await other.page.getByRole("button", { name: "Войти", exact: true }).click();
    await other.page.getByText(/отправлено на другой адрес/).waitFor();
    expect(await storedItem(keys.groupMember("org", orgId, stranger.sub))).toBeUndefined();
    await other.context.close();

    const { context, page } = await openLink(link, "ru");
    await page.getByText("Ромашка приглашает вас в организацию.").waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole("button", { name: "Войти и присоединиться" }).click();
    await page.getByLabel(/^Логин/).fill(email);
    await page.getByLabel(/^Пароль$/).fill(PASSWORD);
    await page.getByRole("button", { name: "Войти", exact: true }).click();
    await page.getByText("Вы присоединились к организации Ромашка.").waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await expectMember(orgId, existing.sub);
    await context.close();
  });
});
