import * as oidc from "openid-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { services } from "../../lib/container";
import { seedAccount, uniqueId } from "../support/fixtures";
import { PASSWORD, useHostedSignIn } from "../support/hosted-sign-in";
import { providerEntry, startTestProvider, type TestProvider, useSettings } from "../support/oauth-provider";

/**
 * "Sign in with <provider>" on the hosted pages, in a real chromium, against a real
 * OpenID provider on loopback (oauth2-mock-server, which signs in whoever `actAs` names).
 */

const { browser, relyingParty, startAuthorization, alertText, backAtClient } = await useHostedSignIn();

let provider: TestProvider;

beforeAll(async () => {
  provider = await startTestProvider();
  useSettings({ federation: { providers: [providerEntry(provider.url)] } });
});
afterAll(() => provider.stop());

async function linkedAccount(overrides: Parameters<typeof seedAccount>[0] = {}) {
  const account = await seedAccount(overrides, PASSWORD);
  const sid = uniqueId("ext-");
  await services().federation.link(
    { sub: account.sub, fpType: "oidc", fpName: "mock", sid },
    Math.floor(Date.now() / 1000),
  );
  return { account, sid };
}

/** A relying party's authorization, opened in a fresh browser, and "Sign in with mock" chosen. */
async function signInWithMock() {
  const { config, redirectUri } = await relyingParty();
  const started = await startAuthorization(config, redirectUri);
  const context = await browser().newContext({ locale: "en-US" });
  const page = await context.newPage();
  await page.goto(started.url.toString());
  await page.getByRole("link", { name: "Sign in with mock" }).click();
  return { config, started, context, page };
}

describe("sign in with an external provider", () => {
  it("signs in the account linked to the provider's account, with amr fed", async () => {
    const { account, sid } = await linkedAccount();
    provider.actAs(sid);
    const { config, started, context, page } = await signInWithMock();

    const callback = await backAtClient(page);
    const tokens = await oidc.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: started.verifier,
      expectedState: started.state,
      expectedNonce: started.nonce,
    });
    expect(tokens.claims()).toMatchObject({ sub: account.sub, amr: ["fed"] });
    // The provider saw PKCE S256 and our own callback.
    const exchange = provider.tokenRequests.at(-1);
    expect(exchange?.code_verifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(exchange?.redirect_uri).toMatch(/\/svc\/oauth\/federated\/callback$/);
    const events = await services().events.list(account.sub, 0, Date.now() + 1000, 50);
    expect(events.find((e) => e.type === "login")?.prms).toMatchObject({ method: "federated" });
    await context.close();
  });

  it("says no account is linked, and signs nobody in", async () => {
    provider.actAs(uniqueId("stranger-"));
    const { context, page } = await signInWithMock();
    expect(await alertText(page)).toMatch(/No account here is linked to this mock account/);
    expect((await context.cookies()).some((c) => c.name === "svc_sso")).toBe(false);
    await context.close();
  });

  it("asks an account with a second factor for its password and code instead", async () => {
    const { sid } = await linkedAccount({ requiredFactor: 2 });
    provider.actAs(sid);
    const { context, page } = await signInWithMock();
    expect(await alertText(page)).toMatch(/password and a code/);
    expect((await context.cookies()).some((c) => c.name === "svc_sso")).toBe(false);
    await context.close();
  });

  it("refuses the provider's answer in a browser that did not start the sign-in (login CSRF)", async () => {
    const { sid } = await linkedAccount();
    provider.actAs(sid);
    const { config, redirectUri } = await relyingParty();
    const started = await startAuthorization(config, redirectUri);
    const victim = await browser().newContext({ locale: "en-US" });
    const attacker = await browser().newContext({ locale: "en-US" });
    const page = await attacker.newPage();
    await page.goto(started.url.toString());
    const href = await page.getByRole("link", { name: "Sign in with mock" }).getAttribute("href");
    const toProvider = await page.request.get(new URL(href as string, page.url()).toString(), { maxRedirects: 0 });
    expect(toProvider.status()).toBe(303);
    const atProvider = await fetch(toProvider.headers().location, { redirect: "manual" });
    const answer = atProvider.headers.get("location") as string;
    expect(answer).toMatch(/\/svc\/oauth\/federated\/callback\?/);

    const lured = await victim.newPage();
    const response = await lured.goto(answer);
    expect(response?.status()).toBe(400);
    expect((await victim.cookies()).some((c) => c.name === "svc_sso")).toBe(false);
    // The state was taken by that try: the attacker's own browser cannot use it either.
    const replay = await page.goto(answer);
    expect(replay?.status()).toBe(400);
    await Promise.all([victim.close(), attacker.close()]);
  });
});
