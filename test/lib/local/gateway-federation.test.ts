import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGateway } from "../../../lib/local/gateway";
import { createClient, seedAccount, userToken } from "../../support/fixtures";
import { providerEntry, startTestProvider, type TestProvider, useSettings } from "../../support/oauth-provider";
import { basicAuthorization } from "../../support/requests";

/**
 * The bind round trip as a browser and an application make it: over HTTP through the
 * local gateway, against a real OAuth 2.0 / OIDC server on loopback.
 */

const CALLBACK = "https://app.example/linked";
const PASSWORD = "the user's own password 123";
const gateway = createGateway();
let base = "";
let provider: TestProvider;
let web: { clientId: string; secret: string };

beforeAll(async () => {
  provider = await startTestProvider();
  useSettings({ federation: { providers: [providerEntry(provider.url)] }, fedToken: { minLifetimeSeconds: 30 } });
  await new Promise<void>((done) => gateway.listen(0, "127.0.0.1", () => done()));
  base = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`;
  web = await createClient(["svc_api_sys_ufa", "fed_tkn_oidc_mock"], { redirectUris: [CALLBACK] });
});
afterAll(async () => {
  gateway.close();
  await provider.stop();
});

async function startBind(authorization: string, body: Record<string, unknown>) {
  const response = await fetch(`${base}/svc/api/v2/users/current/fa/bind`, {
    method: "POST",
    headers: { authorization, "content-type": "application/json" },
    body: JSON.stringify({ fp: "oidc:mock", callback: CALLBACK, ...body }),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { redirectTo: string }).redirectTo;
}

/**
 * What the browser does: to the provider, back to our callback, which asks the owner for
 * the account's password before anything is linked (docs/interface.md §4.9), and where
 * the confirmation (or a provider's refusal) sends it.
 */
async function browserTrip(redirectTo: string): Promise<{ atCallback: URL; final: string }> {
  const authorize = await fetch(redirectTo, { redirect: "manual" });
  expect(authorize.status).toBe(302);
  const atCallback = new URL(authorize.headers.get("location") as string);
  const page = await fetch(atCallback, { redirect: "manual" });
  // A provider's refusal goes straight back to the application: there is nothing to confirm.
  if (page.status === 302) return { atCallback, final: page.headers.get("location") as string };
  expect(page.status).toBe(200);
  const html = await page.text();
  const field = (name: string) => html.match(new RegExp(`name="${name}" value="([^"]*)"`))?.[1] ?? "";
  const cookies = page.headers.getSetCookie().map((c) => c.split(";")[0]);
  const confirmed = await fetch(`${base}/svc/api/v2/users/current/fa/confirm`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: cookies.join("; ") },
    body: new URLSearchParams({ confirmation: field("confirmation"), csrf: field("csrf"), password: PASSWORD }),
  });
  expect(confirmed.status).toBe(303);
  return { atCallback, final: confirmed.headers.get("location") as string };
}

async function appToken(scope: string) {
  const response = await fetch(`${base}/svc/oauth/te`, {
    method: "POST",
    headers: {
      authorization: basicAuthorization(web.clientId, web.secret),
      "content-type": "application/x-www-form-urlencoded",
    },
    body: new URLSearchParams({ grant_type: "client_credentials", scope }),
  });
  return ((await response.json()) as { access_token: string }).access_token;
}

async function get(path: string, scope: string) {
  const response = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${await appToken(scope)}` } });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

describe("binding an external account through the local gateway", () => {
  it("when the user binds with e-mail and password, the browser returns to the application and the link and token are readable", async () => {
    const account = await seedAccount({}, PASSWORD);
    provider.actAs("ext-round-trip", "Round Trip");
    const redirectTo = await startBind(basicAuthorization(account.email?.value as string, PASSWORD), {
      clientId: web.clientId,
    });
    expect(new URL(redirectTo).searchParams.get("redirect_uri")).toBe(`${base}/svc/api/v2/users/current/fa/callback`);

    const { atCallback, final } = await browserTrip(redirectTo);
    expect(`${atCallback.origin}${atCallback.pathname}`).toBe(`${base}/svc/api/v2/users/current/fa/callback`);
    expect(final).toBe(CALLBACK);
    const exchange = provider.tokenRequests.at(-1);
    expect(exchange).toMatchObject({
      grant_type: "authorization_code",
      redirect_uri: `${base}/svc/api/v2/users/current/fa/callback`,
    });
    const issuedAccess = provider.issued.at(-1)?.access_token;

    const links = await get(`/svc/api/v3/users/${account.sub}/fa`, "svc_api_sys_ufa");
    expect(links).toEqual({
      status: 200,
      json: [{ sid: "ext-round-trip", fpType: "oidc", fpName: "mock", userName: "Round Trip" }],
    });
    const tokens = await get(`/svc/api/v3/users/${account.sub}/fedToken/oidc/mock`, "fed_tkn_oidc_mock");
    expect(tokens.status).toBe(200);
    expect(tokens.json["ext-round-trip"]).toEqual({ expiresOn: expect.any(Number), token: issuedAccess });

    // The state was single-use: the browser coming back again is refused.
    const replay = await fetch(atCallback, { redirect: "manual" });
    expect(replay.status).toBe(400);
    expect(((await replay.json()) as { errors: Array<{ code: string }> }).errors[0].code).toBe("invalid_state");
  });

  it("when the user binds with a user access token, the token's application receives the browser", async () => {
    const account = await seedAccount({}, PASSWORD);
    provider.actAs("ext-by-token");
    const token = await userToken(account.sub, ["svc_api_ufa_chg"], web.clientId);
    const { final } = await browserTrip(await startBind(`Bearer ${token}`, {}));
    expect(final).toBe(CALLBACK);
    const links = await get(`/svc/api/v3/users/${account.sub}/fa`, "svc_api_sys_ufa");
    expect((links.json as unknown as Array<{ sid: string }>).map((l) => l.sid)).toEqual(["ext-by-token"]);
  });

  it("when the remembered token nears expiry, fedToken refreshes it at the provider once", async () => {
    const account = await seedAccount({}, PASSWORD);
    provider.actAs("ext-short-lived");
    provider.nextTokenAnswer((answer) => {
      (answer.body as Record<string, unknown>).expires_in = 10;
    });
    await browserTrip(await startBind(basicAuthorization(account.sub, PASSWORD), { clientId: web.clientId }));
    const before = provider.refreshRequests();
    const tokens = await get(`/svc/api/v3/users/${account.sub}/fedToken/oidc/mock`, "fed_tkn_oidc_mock");
    expect(tokens.status).toBe(200);
    expect(provider.refreshRequests() - before).toBe(1);
    const refreshed = tokens.json["ext-short-lived"] as { token: string; expiresOn: number };
    expect(provider.issued.at(-1)).toMatchObject({ grant_type: "refresh_token", access_token: refreshed.token });
    expect(refreshed.expiresOn).toBeGreaterThan(Math.floor(Date.now() / 1000) + 30);
  });

  it("when the provider refuses the refresh, fedToken answers 404 no_token", async () => {
    const account = await seedAccount({}, PASSWORD);
    provider.actAs("ext-refused");
    provider.nextTokenAnswer((answer) => {
      (answer.body as Record<string, unknown>).expires_in = 10;
    });
    await browserTrip(await startBind(basicAuthorization(account.sub, PASSWORD), { clientId: web.clientId }));
    provider.nextTokenAnswer((answer) => {
      answer.statusCode = 400;
      answer.body = { error: "invalid_grant" };
    });
    const tokens = await get(`/svc/api/v3/users/${account.sub}/fedToken/oidc/mock`, "fed_tkn_oidc_mock");
    expect(tokens).toEqual({
      status: 404,
      json: {
        type: "process_error",
        error: "no_token",
        desc: "no valid stored token of this provider for the account",
      },
    });
  });

  it("when the user denies at the provider, the browser returns to the application with the error", async () => {
    const account = await seedAccount({}, PASSWORD);
    const redirectTo = await startBind(basicAuthorization(account.sub, PASSWORD), { clientId: web.clientId });
    provider.server.service.once("beforeAuthorizeRedirect", (redirect) => {
      redirect.url.searchParams.delete("code");
      redirect.url.searchParams.set("error", "access_denied");
    });
    const { final } = await browserTrip(redirectTo);
    expect(final).toBe(`${CALLBACK}?error=access_denied&error_description=the+provider+did+not+authorize+the+link`);
  });
});
