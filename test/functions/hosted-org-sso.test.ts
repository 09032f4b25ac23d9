import { mkdirSync } from "node:fs";
import { join as joinPath } from "node:path";
import { UpdateCommand } from "@aws-sdk/lib-dynamodb";
import * as oidc from "openid-client";
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { config } from "../../lib/config";
import { services } from "../../lib/container";
import { documentClient } from "../../lib/document-client";
import type { Account } from "../../lib/domain/accounts/account";
import { ORG_SSO_TYPE } from "../../lib/domain/organizations/sso-ports";
import { keys } from "../../lib/store/keys";
import { seriousViolations } from "../support/axe";
import { createClient, seedAccount, uniqueId } from "../support/fixtures";
import { PASSWORD, useHostedSignIn } from "../support/hosted-sign-in";
import { passwordLogin } from "../support/login";
import type { TestProvider } from "../support/oauth-provider";
import { basicAuthorization, request } from "../support/requests";
import { useSsoOrganizations } from "../support/sso-organization";
import { storedItem, storedItems } from "../support/stored";

/**
 * Single sign-on per organization (docs/organizations.md), in a real chromium, against a
 * real OpenID provider on loopback (oauth2-mock-server): home-realm discovery by a work
 * address (its domain verified by a TXT record at a DNS server on loopback), the account
 * created just in time, a member with the connection's default roles.
 */

const { browser, relyingParty, startAuthorization, fillSignInForm, alertText, backAtClient } = await useHostedSignIn();

vi.setConfig({ testTimeout: 60_000 });

const { provider: testProvider, ssoOrganization } = await useSsoOrganizations();
let provider: TestProvider;
/** What the provider's next ID tokens say of the person, besides `sub`. */
let person: Record<string, unknown> = {};

beforeAll(() => {
  provider = testProvider();
  provider.server.service.on("beforeTokenSigning", (token) => {
    Object.assign(token.payload, person);
  });
});

async function picture(page: Page, name: string) {
  const folder = process.env.SVC_SCREENSHOTS;
  if (!folder) return;
  mkdirSync(folder, { recursive: true });
  await page.screenshot({ path: joinPath(folder, `${name}.png`) });
}

/** Opens the sign-in page and types a work address into the home-realm step. */
async function continueWithWorkAddress(url: URL, address: string) {
  const context = await browser().newContext({ locale: "en-US" });
  const page = await context.newPage();
  await page.goto(url.toString());
  // Keyboard only: the toggle, the address, Enter.
  await page.getByText("Signing in with your work account?").focus();
  await page.keyboard.press("Enter");
  await page.getByLabel("Work e-mail").fill(address);
  await picture(page, "sign-in-org-sso-en");
  await page.getByLabel("Work e-mail").press("Enter");
  return { context, page };
}

const claimsOf = (jwt: string) =>
  JSON.parse(Buffer.from(jwt.split(".")[1], "base64url").toString()) as Record<string, unknown>;

describe("single sign-on per organization", () => {
  it("when a person of an enforced-SSO domain types the address, the provider signs them in and they are created just in time, members with the default roles, and the RP gets org_id/org_roles", async () => {
    const { orgId, domain } = await ssoOrganization();
    const sid = uniqueId("emp-");
    const address = `ada.${sid}@${domain}`;
    provider.actAs(sid);
    person = { email: address, email_verified: true, first_name: "Ada", family_name: "Lovelace" };

    const { config: rp, redirectUri } = await relyingParty({ scopes: ["svc_api_user"] });
    const started = await startAuthorization(rp, redirectUri, { organization: orgId });
    const { context, page } = await continueWithWorkAddress(started.url, address);
    // The provider was asked with PKCE S256, a nonce and the address as login_hint.
    const callback = await backAtClient(page);
    const exchange = provider.tokenRequests.at(-1);
    expect(exchange?.code_verifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(exchange?.redirect_uri).toMatch(/\/oauth\/federated\/callback$/);

    const tokens = await oidc.authorizationCodeGrant(rp, callback, {
      pkceCodeVerifier: started.verifier,
      expectedState: started.state,
      expectedNonce: started.nonce,
    });
    const claims = tokens.claims();
    expect(claims).toMatchObject({ amr: ["fed"], org_id: orgId, org_roles: ["SYS_MON"] });
    expect(claimsOf(tokens.access_token)).toMatchObject({ org_id: orgId, org_roles: ["SYS_MON"] });
    const sub = claims?.sub as string;

    // Just in time: the account with the mapped names and the confirmed address, linked and a member.
    const account = await services().accounts.get(sub);
    expect(account).toMatchObject({
      given_name: "Ada",
      family_name: "Lovelace",
      email: { value: address.toLowerCase(), verified: true },
    });
    expect(await services().federation.ownerOf("org", orgId, sid)).toBe(sub);
    expect(await storedItem(keys.groupMember("org", orgId, sub))).toBeDefined();
    expect(await services().organizations.memberState(orgId, sub)).toMatchObject({ roles: ["SYS_MON"] });
    // The login event says how: method org_sso and the organization.
    const logins = (await storedItems(sub, "EVENT#")).filter((e) => e.type === "login");
    expect(logins.at(-1)?.prms).toMatchObject({ method: "org_sso", org: orgId });
    await context.close();

    // A second sign-in carries the provider's changed name over; still one account.
    person = { ...person, first_name: "Augusta" };
    const again = await startAuthorization(rp, redirectUri);
    const second = await continueWithWorkAddress(again.url, address);
    const back = await backAtClient(second.page);
    const next = await oidc.authorizationCodeGrant(rp, back, {
      pkceCodeVerifier: again.verifier,
      expectedState: again.state,
      expectedNonce: again.nonce,
    });
    expect(next.claims()?.sub).toBe(sub);
    expect(await services().accounts.get(sub)).toMatchObject({ given_name: "Augusta", family_name: "Lovelace" });
    await second.context.close();
  });

  it("when the provider asserts an address of a domain the organization did not verify, nobody is created", async () => {
    const { domain } = await ssoOrganization();
    const sid = uniqueId("emp-");
    provider.actAs(sid);
    person = { email: `${sid}@other-company.example`, email_verified: true };
    const { config: rp, redirectUri } = await relyingParty();
    const started = await startAuthorization(rp, redirectUri);
    const { context, page } = await continueWithWorkAddress(started.url, `${sid}@${domain}`);
    expect(await alertText(page)).toMatch(/did not give an address of a domain the organization verified/);
    expect((await context.cookies()).some((c) => c.name === "svc_sso")).toBe(false);
    await context.close();
  });

  it("when the organization is being deleted as a person signs in for the first time, nothing is created: no account, no link, no membership", async () => {
    const { orgId, domain } = await ssoOrganization();
    const sid = uniqueId("emp-");
    const address = `${sid}@${domain}`;
    provider.actAs(sid);
    person = { email: address, email_verified: true };
    // A deletion under way marks the group first (lib/store/groups.ts), before its clean-up.
    await documentClient().send(
      new UpdateCommand({
        TableName: config().tableName,
        Key: keys.group("org", orgId),
        UpdateExpression: "SET deleting = :now",
        ExpressionAttributeValues: { ":now": Math.floor(Date.now() / 1000) },
      }),
    );
    const { config: rp, redirectUri } = await relyingParty();
    const started = await startAuthorization(rp, redirectUri);
    const { context, page } = await continueWithWorkAddress(started.url, address);
    expect(await alertText(page)).toBe("Your organization's sign-in is not available now.");
    await context.close();
    expect(await services().accountSearch.ownerOfContact("email", address)).toBeUndefined();
    expect(await services().federation.ownerOf(ORG_SSO_TYPE, orgId, sid)).toBeUndefined();
    expect(await services().groups.members("org", orgId, { limit: 10 })).toMatchObject({ subs: [] });
  });

  it.each([
    ["its address (refused before the password is checked)", (a: Account) => a.email?.value],
    ["its phone (refused once the password proved the account)", (a: Account) => a.phone_number?.value],
  ])(
    "when an account of an enforced domain signs in on the password form by %s, it is told to use its organization's sign-in and no session starts",
    async (_, login) => {
      const { domain } = await ssoOrganization();
      const account = await seedAccount({ email: { value: `${uniqueId("pw-")}@${domain}`, verified: true } }, PASSWORD);
      const { config: rp, redirectUri } = await relyingParty();
      const started = await startAuthorization(rp, redirectUri);
      const { context, page } = await fillSignInForm(started.url, login(account) as string);
      expect(await alertText(page)).toMatch(/Your organization signs you in/);
      expect((await context.cookies()).some((c) => c.name === "svc_sso")).toBe(false);
      await context.close();
      expect(await services().sessions.listSessions(account.sub)).toEqual([]);
    },
  );

  it("when an account of an enforced domain uses the password grant or HTTP Basic by phone or sub, it is refused with the reason on record, and allowed again once the domain stops enforcing", async () => {
    const { domain, setPolicy } = await ssoOrganization();
    const account = await seedAccount({ email: { value: `${uniqueId("api-")}@${domain}`, verified: true } }, PASSWORD);
    const client = await createClient(["svc_api_user"]);
    const grant = () =>
      passwordLogin(client, {
        username: account.phone_number?.value as string,
        password: PASSWORD,
        scope: "svc_api_user",
      });
    const refused = await grant();
    expect(refused.statusCode).toBe(400);
    expect(refused.json).toMatchObject({
      error: "invalid_grant",
      error_description: "the organization's sign-in must be used",
    });
    const [event] = await services().events.list(account.sub, 0, Date.now() + 60_000, 10);
    expect(event).toMatchObject({ type: "login", result: "org_sso_required", prms: { method: "password" } });
    expect(await services().sessions.listSessions(account.sub)).toEqual([]);

    const basic = await request("federation", "events/federation/bind-user-basic.json", {
      body: { fp: "oidc:mock", callback: "https://app.example.com/cb", clientId: client.clientId },
      authorization: basicAuthorization(account.sub, PASSWORD),
    });
    expect(basic.statusCode).toBe(401);
    expect(basic.body).toContain("the organization's sign-in must be used");

    expect((await setPolicy("none")).statusCode).toBe(200);
    expect((await grant()).statusCode).toBe(200);
  });

  it("when a request names the organization, the page offers its sign-in, and the page with the home-realm step has no serious axe violation", async () => {
    const { orgId } = await ssoOrganization();
    const { config: rp, redirectUri } = await relyingParty();
    const started = await startAuthorization(rp, redirectUri, { organization: orgId });
    const context = await browser().newContext({ locale: "ru-RU", bypassCSP: true });
    const page = await context.newPage();
    await page.goto(started.url.toString());
    await page.getByText("Входите рабочей учётной записью?").click();
    expect(await seriousViolations(page)).toEqual([]);
    const offered = page.getByRole("link", { name: "Войти через учётную запись организации" });
    const href = await offered.getAttribute("href");
    const toProvider = await page.request.get(new URL(href as string, page.url()).toString(), { maxRedirects: 0 });
    expect(toProvider.status()).toBe(303);
    expect(toProvider.headers().location).toMatch(new RegExp(`^${provider.url}/authorize\\?`));
    await context.close();
  });
});
