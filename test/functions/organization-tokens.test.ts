import { mkdirSync } from "node:fs";
import { join as joinPath } from "node:path";
import * as oidc from "openid-client";
import { describe, expect, it, vi } from "vitest";
import { seriousViolations } from "../support/axe";
import { seedAccount, uniqueId } from "../support/fixtures";
import { forgetHookCalls, hookCalls, scriptHook, useScriptedHooks } from "../support/hooks";
import { PASSWORD, useHostedSignIn } from "../support/hosted-sign-in";
import { request } from "../support/requests";

/**
 * An organization in the protocol (DESIGN 6b, issue 39 point 5): an authorization request
 * names one with `organization=<id>`; a member's ID token, access token and userinfo carry
 * `org_id` and `org_roles` (the rights held over the organization's group); anyone else is
 * refused. openid-client is the relying party, chromium the browser.
 */

const { browser, relyingParty, startAuthorization, fillSignInForm, backAtClient, redeem } = await useHostedSignIn();

/** Signs in on a page axe-core can be injected into (bypassing the page's CSP), in English or Russian. */
async function signInForAxe(url: URL, login: string, lang: "en" | "ru" = "en") {
  const context = await browser().newContext({ locale: lang === "ru" ? "ru-RU" : "en-US", bypassCSP: true });
  const page = await context.newPage();
  await page.goto(url.toString());
  await page.getByLabel(lang === "ru" ? /^Логин/ : /login/i).fill(login);
  await page.getByLabel(lang === "ru" ? /^Пароль$/ : /^password$/i).fill(PASSWORD);
  await page.getByRole("button", { name: lang === "ru" ? "Войти" : "Sign in", exact: true }).click();
  return { context, page };
}

vi.setConfig({ testTimeout: 60_000 });

async function organization() {
  const id = uniqueId("org-");
  const created = await request("groups", "events/groups/create-group.json", {
    body: { profile: "org", id, name: `Org ${id}` },
  });
  expect(created.statusCode, created.body).toBe(201);
  return id;
}

async function join(org: string, sub: string, rights: string[] = []) {
  const added = await request("groups", "events/groups/members-add.json", {
    params: { groupId: org },
    query: { profile: "org" },
    body: [{ subjectId: sub }],
  });
  expect(added.statusCode, added.body).toBe(200);
  if (rights.length === 0) return;
  const granted = await request("rights", "events/rights/assign-rights.json", {
    body: { subject: sub, object: org, objectType: "grps", objectExt: "org", rights, tags: ["org"] },
  });
  expect(granted.statusCode, granted.body).toBe(204);
}

/** Signs `login` in for `org` and answers where the browser came back. */
async function signInFor(config: oidc.Configuration, redirectUri: string, login: string, org: string) {
  const started = await startAuthorization(config, redirectUri, { organization: org });
  const { context, page } = await fillSignInForm(started.url, login, PASSWORD);
  const callback = await backAtClient(page);
  await context.close();
  return { started, callback };
}

/** `npm run screenshots` keeps the picker's picture for docs/organizations.md. */
async function picture(page: import("playwright-core").Page, name: string) {
  const folder = process.env.SVC_SCREENSHOTS;
  if (!folder) return;
  mkdirSync(folder, { recursive: true });
  await page.screenshot({ path: joinPath(folder, `${name}.png`) });
}

const claimsOf = (jwt: string) =>
  JSON.parse(Buffer.from(jwt.split(".")[1], "base64url").toString()) as Record<string, unknown>;

describe("organization=<id> at the authorization endpoint", () => {
  it("when a member signs in for the organization, the ID token, access token, userinfo and each refresh carry org_id and org_roles", async () => {
    const org = await organization();
    const member = await seedAccount({}, PASSWORD);
    await join(org, member.sub, ["ORG_ADMIN"]);
    const rp = await relyingParty({ scopes: ["svc_api_user", "offline_access"] });
    const { started, callback } = await signInFor(rp.config, rp.redirectUri, member.sub, org);
    const tokens = await redeem(rp.config, callback, started);
    expect(tokens.claims()).toMatchObject({ sub: member.sub, org_id: org, org_roles: ["ORG_ADMIN"] });
    expect(claimsOf(tokens.access_token)).toMatchObject({ sub: member.sub, org_id: org, org_roles: ["ORG_ADMIN"] });
    const info = await oidc.fetchUserInfo(rp.config, tokens.access_token, member.sub);
    expect(info).toMatchObject({ sub: member.sub, org_id: org, org_roles: ["ORG_ADMIN"] });

    // Roles are read again: a role granted after the sign-in shows in the next refresh.
    const granted = await request("rights", "events/rights/assign-rights.json", {
      body: {
        subject: member.sub,
        object: org,
        objectType: "grps",
        objectExt: "org",
        rights: ["SYS_MON"],
        tags: ["org"],
      },
    });
    expect(granted.statusCode, granted.body).toBe(204);
    const refreshed = await oidc.refreshTokenGrant(rp.config, tokens.refresh_token as string);
    expect(claimsOf(refreshed.access_token)).toMatchObject({ org_id: org, org_roles: ["ORG_ADMIN", "SYS_MON"] });

    // Removed from the organization: the next refresh and userinfo refuse.
    const removed = await request("groups", "events/groups/members-rm.json", {
      params: { groupId: org },
      query: { profile: "org" },
      body: [{ subjectId: member.sub }],
    });
    expect(removed.statusCode, removed.body).toBe(200);
    await expect(oidc.refreshTokenGrant(rp.config, refreshed.refresh_token as string)).rejects.toMatchObject({
      error: "invalid_grant",
      error_description: "the account is no longer a member of the organization",
    });
    await expect(oidc.fetchUserInfo(rp.config, refreshed.access_token, member.sub)).rejects.toThrow();
  });

  it("when the preTokenIssue hook runs, it is told the organization and the roles, and cannot change the org claims", async () => {
    const org = await organization();
    const member = await seedAccount({}, PASSWORD);
    await join(org, member.sub, ["ORG_ADMIN"]);
    useScriptedHooks({ preTokenIssue: 1000 });
    forgetHookCalls();
    scriptHook("preTokenIssue", () => ({
      accessToken: { claims: { plan: "gold", org_id: "elsewhere" } },
      idToken: { claims: { org_roles: ["FORGED"] } },
    }));
    try {
      const rp = await relyingParty();
      const { started, callback } = await signInFor(rp.config, rp.redirectUri, member.sub, org);
      const tokens = await redeem(rp.config, callback, started);
      expect(hookCalls("preTokenIssue").at(-1)).toMatchObject({
        grant: "authorization_code",
        sub: member.sub,
        organization: { id: org, roles: ["ORG_ADMIN"] },
      });
      expect(claimsOf(tokens.access_token)).toMatchObject({ plan: "gold", org_id: org, org_roles: ["ORG_ADMIN"] });
      expect(tokens.claims()).toMatchObject({ org_id: org, org_roles: ["ORG_ADMIN"] });
    } finally {
      useScriptedHooks({});
    }
  });

  it("when the account is not a member, the client hears access_denied and no code is issued", async () => {
    const org = await organization();
    const outsider = await seedAccount({}, PASSWORD);
    const rp = await relyingParty();
    const { callback, started } = await signInFor(rp.config, rp.redirectUri, outsider.sub, org);
    expect(callback.searchParams.get("error")).toBe("access_denied");
    expect(callback.searchParams.get("error_description")).toBe("the account is not a member of the organization");
    expect(callback.searchParams.get("state")).toBe(started.state);
    expect(callback.searchParams.has("code")).toBe(false);
  });

  it("when the same browser switches organization, no password is asked again and each code carries its own", async () => {
    const [first, second] = [await organization(), await organization()];
    const member = await seedAccount({}, PASSWORD);
    await join(first, member.sub, ["ORG_ADMIN"]);
    await join(second, member.sub);
    const rp = await relyingParty();
    const started = await startAuthorization(rp.config, rp.redirectUri, { organization: first });
    const { context, page } = await fillSignInForm(started.url, member.sub, PASSWORD);
    const back = await backAtClient(page);
    expect((await redeem(rp.config, back, started)).claims()).toMatchObject({
      org_id: first,
      org_roles: ["ORG_ADMIN"],
    });
    // The session holds: the second organization's request comes straight back with a code.
    const again = await startAuthorization(rp.config, rp.redirectUri, { organization: second });
    await page.goto(again.url.toString());
    const switched = await backAtClient(page);
    expect((await redeem(rp.config, switched, again)).claims()).toMatchObject({ org_id: second, org_roles: [] });
    await context.close();
  });

  it("when organization is malformed, the client hears invalid_request", async () => {
    const rp = await relyingParty();
    const started = await startAuthorization(rp.config, rp.redirectUri, { organization: "no|pipes" });
    const answer = await fetch(started.url, { redirect: "manual" });
    const location = new URL(answer.headers.get("location") ?? "");
    expect(location.searchParams.get("error")).toBe("invalid_request");
    expect(location.searchParams.get("error_description")).toBe("organization must be an organization's id");
  });

  it("when the client asks for scope organization and names none, the user picks one of theirs by keyboard, and the tokens are for it", async () => {
    const [first, second] = [await organization(), await organization()];
    const member = await seedAccount({}, PASSWORD);
    await join(first, member.sub);
    await join(second, member.sub, ["ORG_ADMIN"]);
    const rp = await relyingParty();
    const started = await startAuthorization(rp.config, rp.redirectUri, { scope: "openid organization svc_api_user" });
    const { context, page } = await signInForAxe(started.url, member.sub);
    await page.getByRole("heading", { name: "Choose an organization" }).waitFor();
    expect(await page.getByRole("button").allTextContents()).toEqual(
      expect.arrayContaining([`Org ${first}`, `Org ${second}`]),
    );
    expect(await seriousViolations(page)).toEqual([]);
    await picture(page, "organization-picker-en");
    await page.getByRole("button", { name: `Org ${second}` }).focus();
    await page.keyboard.press("Enter");
    const callback = await backAtClient(page);
    await context.close();
    const tokens = await redeem(rp.config, callback, started);
    expect(tokens.claims()).toMatchObject({ org_id: second, org_roles: ["ORG_ADMIN"] });
    expect(tokens.scope?.split(" ")).toContain("organization");
  });

  it("when the picker is shown in Russian, or the account belongs to no organization, or a forged pick names another", async () => {
    const mine = await organization();
    const theirs = await organization();
    const member = await seedAccount({}, PASSWORD);
    await join(mine, member.sub);
    const rp = await relyingParty();
    const started = await startAuthorization(rp.config, rp.redirectUri, { scope: "openid organization" });
    const { context, page } = await signInForAxe(started.url, member.sub, "ru");
    await page.getByRole("heading", { name: "Выберите организацию" }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    // A pick rewritten to an organization the user does not belong to is refused like the parameter.
    await page
      .locator('input[name="organization"]')
      .first()
      .evaluate((input, id) => {
        (input as unknown as { value: string }).value = id;
      }, theirs);
    await page.getByRole("button", { name: `Org ${mine}` }).click();
    const refused = await backAtClient(page);
    expect(refused.searchParams.get("error")).toBe("access_denied");
    await context.close();

    const loner = await seedAccount({}, PASSWORD);
    const again = await startAuthorization(rp.config, rp.redirectUri, { scope: "openid organization" });
    const signedIn = await fillSignInForm(again.url, loner.sub, PASSWORD);
    const none = await backAtClient(signedIn.page);
    expect(none.searchParams.get("error")).toBe("access_denied");
    expect(none.searchParams.get("error_description")).toBe("the account is not a member of any organization");
    await signedIn.context.close();
  });
});
