import { UpdateCommand } from "@aws-sdk/lib-dynamodb";
import * as oidc from "openid-client";
import { afterEach, describe, expect, it } from "vitest";
import { config } from "../../lib/config";
import { documentClient } from "../../lib/document-client";
import { PUSHED_REQUEST_TTL_SECONDS, REQUEST_URI_PREFIX } from "../../lib/domain/oauth/pushed-authorization";
import { keys } from "../../lib/store/keys";
import { seedAccount, systemBearer, uniqueId } from "../support/fixtures";
import { PASSWORD, useHostedSignIn } from "../support/hosted-sign-in";
import { useSettings } from "../support/oauth-provider";
import { request } from "../support/requests";
import { spentBy } from "../support/round-trips";
import { storedItem } from "../support/stored";
import { svcAdmin } from "../support/svc-admin";
import { expectNothingStored, tableSnapshot } from "../support/table-snapshot";

/**
 * Pushed authorization requests (RFC 9126): a relying party pushes its request with its
 * authentication, then sends the browser with the request_uri alone; openid-client's
 * buildAuthorizationUrlWithPAR and chromium drive it as integrators would.
 */

const { issuer, rp, relyingParty, startAuthorization, fillSignInForm, backAtClient } = await useHostedSignIn();

afterEach(() => useSettings({}));

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString("base64")}`;

/** A push by plain HTTP: the status, the body and the cache-control header. */
async function push(form: Record<string, string>, authorization?: string) {
  const response = await fetch(`${issuer}/oauth/par`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...(authorization && { authorization }) },
    body: new URLSearchParams(form),
  });
  return {
    status: response.status,
    body: (await response.json()) as Record<string, unknown>,
    cacheControl: response.headers.get("cache-control"),
  };
}

/** The authorization endpoint as a browser without cookies meets it, redirects not followed. */
async function authorize(query: Record<string, string>, language = "en") {
  const response = await fetch(`${issuer}/oauth/authorize?${new URLSearchParams(query)}`, {
    redirect: "manual",
    headers: { "accept-language": language },
  });
  return { status: response.status, text: await response.text(), location: response.headers.get("location") };
}

const referenceOf = (requestUri: unknown) => String(requestUri).slice(REQUEST_URI_PREFIX.length);

/** A confidential first-party relying party and a request it may push. */
async function pushingParty() {
  const party = await relyingParty();
  const form = {
    response_type: "code",
    redirect_uri: party.redirectUri,
    scope: "openid svc_api_user",
    state: "s-1",
    code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
    code_challenge_method: "S256",
  };
  return { ...party, form, authorization: basic(party.clientId, party.secret) };
}

const UNKNOWN_LINK_EN = "This sign-in link is not valid";
const UNKNOWN_LINK_RU = "Ссылка для входа недействительна";

describe("POST /svc/oauth/par and the authorization endpoint (RFC 9126)", () => {
  it("openid-client pushes, the browser carries the request_uri alone, the user signs in and the code is redeemed", async () => {
    const { config: client, redirectUri, clientId } = await relyingParty();
    const account = await seedAccount({}, PASSWORD);
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const url = await oidc.buildAuthorizationUrlWithPAR(client, {
      redirect_uri: redirectUri,
      scope: "openid profile svc_api_user",
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: "S256",
      state,
      nonce,
    });
    expect([...url.searchParams.keys()].sort()).toEqual(["client_id", "request_uri"]);
    const requestUri = url.searchParams.get("request_uri") as string;
    expect(requestUri).toMatch(/^urn:ietf:params:oauth:request_uri:[A-Za-z0-9_-]{43}$/);
    const stored = await storedItem(keys.pushedAuthorization(referenceOf(requestUri)));
    expect(stored).toMatchObject({
      entity: "pushed-authorization",
      clientId,
      params: { client_id: clientId, redirect_uri: redirectUri, state, nonce, scope: "openid profile svc_api_user" },
    });
    const now = Math.floor(Date.now() / 1000);
    expect(Number(stored?.expiresAt)).toBeGreaterThan(now + PUSHED_REQUEST_TTL_SECONDS - 5);
    expect(Number(stored?.expiresAt)).toBeLessThanOrEqual(now + PUSHED_REQUEST_TTL_SECONDS);
    // Client authentication never rides in the stored request.
    expect(stored?.params).not.toHaveProperty("client_secret");

    // Other query parameters are ignored (RFC 9126 4): the pushed state and redirect URI win.
    url.searchParams.set("state", "forged");
    url.searchParams.set("redirect_uri", "https://evil.example/cb");
    const { context, page } = await fillSignInForm(url, account.sub);
    const callback = await backAtClient(page);
    await context.close();
    expect(callback.searchParams.get("state")).toBe(state);
    const tokens = await oidc.authorizationCodeGrant(client, callback, {
      pkceCodeVerifier: verifier,
      expectedState: state,
      expectedNonce: nonce,
    });
    expect(tokens.claims()?.sub).toBe(account.sub);
    // Taken once: the item is gone.
    expect(await storedItem(keys.pushedAuthorization(referenceOf(requestUri)))).toBeUndefined();
  });

  it("answers 201 with a one-time request_uri, no-store; the second use is the error page in the browser's language", async () => {
    const party = await pushingParty();
    await push(party.form, party.authorization); // the client's record is cached from here on
    // docs/performance.md: a push is one write; an authorization by request_uri one write more than by query.
    const { result: pushed, ...pushCost } = await spentBy(() => push(party.form, party.authorization));
    expect(pushed).toMatchObject({ status: 201, body: { expires_in: 60 }, cacheControl: "no-store" });
    expect(pushCost).toEqual({ total: 1, reads: 0, writes: 1 });
    const query = { client_id: party.clientId, request_uri: String(pushed.body.request_uri) };
    const { result: plain, ...plainCost } = await spentBy(() =>
      authorize({ ...party.form, client_id: party.clientId }),
    );
    const { result: first, ...pushedCost } = await spentBy(() => authorize(query));
    expect(plain.status).toBe(200);
    expect(pushedCost).toEqual({ ...plainCost, total: plainCost.total + 1, writes: plainCost.writes + 1 });
    expect(first.status).toBe(200);
    expect(first.text).toContain('autocomplete="current-password"');
    const again = await authorize(query);
    expect(again).toMatchObject({ status: 400, location: null });
    expect(again.text).toContain(UNKNOWN_LINK_EN);
    expect((await authorize(query, "ru")).text).toContain(UNKNOWN_LINK_RU);
  });

  it("an expired request_uri is the error page, and nothing is sent to the client", async () => {
    const party = await pushingParty();
    const pushed = await push(party.form, party.authorization);
    await documentClient().send(
      new UpdateCommand({
        TableName: config().tableName,
        Key: keys.pushedAuthorization(referenceOf(pushed.body.request_uri)),
        UpdateExpression: "SET expiresAt = :past",
        ExpressionAttributeValues: { ":past": Math.floor(Date.now() / 1000) - 1 },
      }),
    );
    const answer = await authorize({ client_id: party.clientId, request_uri: String(pushed.body.request_uri) });
    expect(answer).toMatchObject({ status: 400, location: null });
    expect(answer.text).toContain(UNKNOWN_LINK_EN);
  });

  it("another client's request_uri is refused without spending it; an unknown one too", async () => {
    const owner = await pushingParty();
    const other = await pushingParty();
    const pushed = await push(owner.form, owner.authorization);
    const requestUri = String(pushed.body.request_uri);
    const foreign = await authorize({ client_id: other.clientId, request_uri: requestUri });
    expect(foreign).toMatchObject({ status: 400, location: null });
    expect(foreign.text).toContain(UNKNOWN_LINK_EN);
    for (const reference of ["A".repeat(43), "short", "x".repeat(4000)]) {
      const unknown = await authorize({ client_id: owner.clientId, request_uri: `${REQUEST_URI_PREFIX}${reference}` });
      expect(unknown).toMatchObject({ status: 400, location: null });
      expect(unknown.text).toContain(UNKNOWN_LINK_EN);
    }
    // Still the owner's to use.
    expect((await authorize({ client_id: owner.clientId, request_uri: requestUri })).status).toBe(200);
  });

  it("a request_uri that is not ours still answers request_uri_not_supported at the redirect URI", async () => {
    const party = await pushingParty();
    const answer = await authorize({
      ...party.form,
      client_id: party.clientId,
      request_uri: "https://party.example/request.jwt",
    });
    expect(answer.status).toBe(303);
    const location = new URL(String(answer.location));
    expect(`${location.origin}${location.pathname}`).toBe(party.redirectUri);
    expect(location.searchParams.get("error")).toBe("request_uri_not_supported");
  });

  it("a client that must push is refused at its redirect URI without it, even with a forged mark, and served with it through consent", async () => {
    const party = await relyingParty({ requirePushedAuthorizationRequests: true, firstParty: false });
    const started = await startAuthorization(party.config, party.redirectUri);
    for (const url of [started.url, new URL(`${started.url}&pushed=1`)]) {
      const refused = await fetch(url, { redirect: "manual" });
      expect(refused.status).toBe(303);
      const location = new URL(String(refused.headers.get("location")));
      expect(location.toString().startsWith(party.redirectUri)).toBe(true);
      expect(location.searchParams.get("error")).toBe("invalid_request");
      expect(location.searchParams.get("error_description")).toContain("must push its authorization requests");
      expect(location.searchParams.get("state")).toBe(started.state);
    }

    // Pushed, it passes the sign-in form and the consent form, each of which reads the request again.
    const account = await seedAccount({}, PASSWORD);
    const url = await oidc.buildAuthorizationUrlWithPAR(party.config, Object.fromEntries(started.url.searchParams));
    const { context, page } = await fillSignInForm(url, account.sub);
    await page.getByText(`${party.clientId} asks to:`).waitFor();
    await page.getByRole("button", { name: "Allow" }).click();
    const callback = await backAtClient(page);
    await context.close();
    const tokens = await oidc.authorizationCodeGrant(party.config, callback, {
      pkceCodeVerifier: started.verifier,
      expectedState: started.state,
      expectedNonce: started.nonce,
    });
    expect(tokens.claims()?.sub).toBe(account.sub);
  });

  it("refuses bad pushed requests with a JSON error and stores nothing", async () => {
    const party = await pushingParty();
    const public_ = await relyingParty({ public: true });
    const before = await tableSnapshot();
    const refusals: Array<[Record<string, string>, string | undefined, number, string]> = [
      [{ ...party.form, redirect_uri: "https://evil.example/cb" }, party.authorization, 400, "invalid_request"],
      [{ ...party.form, redirect_uri: "" }, party.authorization, 400, "invalid_request"],
      [{ ...party.form, scope: "openid svc_api_sys_users" }, party.authorization, 400, "invalid_scope"],
      [
        { ...party.form, request_uri: `${REQUEST_URI_PREFIX}${"A".repeat(43)}` },
        party.authorization,
        400,
        "invalid_request",
      ],
      [{ ...party.form, request: "eyJhbGciOiJub25lIn0.e30." }, party.authorization, 400, "request_not_supported"],
      [{ ...party.form, response_type: "token" }, party.authorization, 400, "unsupported_response_type"],
      [{ ...party.form, resource: "https://nowhere.example/api" }, party.authorization, 400, "invalid_target"],
      [{ ...party.form, client_id: public_.clientId }, party.authorization, 400, "invalid_request"],
      [{ ...party.form, state: "s".repeat(9000) }, party.authorization, 400, "invalid_request"],
      [party.form, undefined, 401, "invalid_client"],
      [party.form, basic(party.clientId, "wrong-secret"), 401, "invalid_client"],
      // A public client must send PKCE here as at the authorization endpoint.
      [
        { ...party.form, client_id: public_.clientId, redirect_uri: public_.redirectUri, code_challenge: "" },
        undefined,
        400,
        "invalid_request",
      ],
    ];
    for (const [form, authorization, status, error] of refusals) {
      const answer = await push(form, authorization);
      expect({ status: answer.status, error: answer.body.error }, JSON.stringify(form)).toEqual({ status, error });
      expect(answer.body).not.toHaveProperty("request_uri");
      expect(JSON.stringify(answer.body)).not.toContain(party.secret);
    }
    expectNothingStored(before, await tableSnapshot(), "refused pushes");
    // A public client pushes with client_id alone.
    const { code_challenge: _, ...withoutPkce } = party.form;
    const publicPush = await push({
      ...withoutPkce,
      code_challenge: party.form.code_challenge,
      client_id: public_.clientId,
      redirect_uri: public_.redirectUri,
    });
    expect(publicPush.status).toBe(201);
  });
});

describe("require_pushed_authorization_requests on the client", () => {
  it("the clients API creates and changes the flag, and the stored client follows", async () => {
    const clientId = uniqueId("par-app-");
    const authorization = await systemBearer(["svc_api_sys_clients_chg", "svc_api_sys_users"]);
    const created = await request("clients", "events/clients/create.json", {
      body: {
        clientId,
        scopes: ["svc_api_sys_users"],
        redirectUris: ["https://par.example/cb"],
        requirePushedAuthorizationRequests: true,
      },
      authorization,
    });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json.requirePushedAuthorizationRequests).toBe(true);
    expect(await storedItem(keys.client(clientId))).toMatchObject({ requirePushedAuthorizationRequests: true });
    const changed = await request("clients", "events/clients/change.json", {
      params: { clientId },
      body: { requirePushedAuthorizationRequests: false },
      authorization,
    });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json.requirePushedAuthorizationRequests).toBe(false);
    expect(await storedItem(keys.client(clientId))).toMatchObject({ requirePushedAuthorizationRequests: false });
    const wrong = await request("clients", "events/clients/change.json", {
      params: { clientId },
      body: { requirePushedAuthorizationRequests: "yes" },
      authorization,
    });
    expect(wrong.statusCode).toBe(400);
  });

  it("dynamic registration (RFC 7591, 7592) takes, echoes and replaces require_pushed_authorization_requests", async () => {
    useSettings({
      clientRegistration: { mode: "open", scopes: ["svc_api_user"], unusedDays: 30, perAddressPerHour: 50 },
    });
    const registered = await fetch(`${issuer}/oauth/clients`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ redirect_uris: [`${rp.url()}/cb`], require_pushed_authorization_requests: true }),
    });
    const body = (await registered.json()) as Record<string, unknown>;
    expect(registered.status).toBe(201);
    expect(body.require_pushed_authorization_requests).toBe(true);
    const clientId = String(body.client_id);
    expect(await storedItem(keys.client(clientId))).toMatchObject({ requirePushedAuthorizationRequests: true });

    const replaced = await fetch(String(body.registration_client_uri), {
      method: "PUT",
      headers: { "content-type": "application/json", authorization: `Bearer ${body.registration_access_token}` },
      body: JSON.stringify({ client_id: clientId, redirect_uris: [`${rp.url()}/cb`] }),
    });
    expect(replaced.status).toBe(200);
    expect(((await replaced.json()) as Record<string, unknown>).require_pushed_authorization_requests).toBe(false);
    expect(await storedItem(keys.client(clientId))).toMatchObject({ requirePushedAuthorizationRequests: false });
  });

  it("svc-admin clients create and update set the flag", async () => {
    const clientId = uniqueId("par-cli-");
    const created = await svcAdmin(
      "clients",
      "create",
      "--id",
      clientId,
      "--scopes",
      "svc_api_user",
      "--redirect-uris",
      "https://cli.example/cb",
      "--require-pushed-authorization-requests",
    );
    expect(created.code, created.stderr).toBe(0);
    expect(await storedItem(keys.client(clientId))).toMatchObject({ requirePushedAuthorizationRequests: true });
    const updated = await svcAdmin("clients", "update", "--id", clientId, "--no-require-pushed-authorization-requests");
    expect(updated.code, updated.stderr).toBe(0);
    expect(await storedItem(keys.client(clientId))).toMatchObject({ requirePushedAuthorizationRequests: false });
  });

  it("discovery names the endpoint and says the server does not require pushing of every client", async () => {
    const response = await fetch(`${issuer}/.well-known/openid-configuration`);
    const metadata = (await response.json()) as Record<string, unknown>;
    expect(metadata.pushed_authorization_request_endpoint).toBe(`${issuer}/oauth/par`);
    expect(metadata.require_pushed_authorization_requests).toBe(false);
  });
});
