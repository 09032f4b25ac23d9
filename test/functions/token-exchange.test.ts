import { createRemoteJWKSet, decodeJwt, jwtVerify } from "jose";
import * as oidc from "openid-client";
import { describe, expect, it } from "vitest";
import { config } from "../../lib/config";
import { services } from "../../lib/container";
import { GRANT } from "../../lib/domain/clients/client";
import { ACCESS_TOKEN_TYPE_URI } from "../../lib/domain/oauth/token-exchange";
import { mintUserToken } from "../../lib/local/user-token";
import { keys } from "../../lib/store/keys";
import { createClient, seedAccount, systemBearer, systemToken, uniqueId } from "../support/fixtures";
import { forgedTokens } from "../support/forged-tokens";
import { useIssuerGateway } from "../support/gateway";
import { useSettings } from "../support/oauth-provider";
import { basicAuthorization, basicCredentials, readOwnAccount, request } from "../support/requests";
import { storedItem } from "../support/stored";
import { svcAdmin } from "../support/svc-admin";

/**
 * Token exchange (RFC 8693): a back end trades a token it was handed for a narrower one of
 * its own, for the user (impersonation) or on the user's behalf (delegation, `act`).
 * openid-client performs the exchange, jose checks the token it gets.
 */

// The clients API's changes show at the token endpoint at once.
useSettings({ clients: { cacheSeconds: 0 } });
const { issuer } = await useIssuerGateway();

const AT = ACCESS_TOKEN_TYPE_URI;
/** An audience no client of this file lists: a foreign resource server. */
const FOREIGN = "https://reports.example/api";

/** The application the user signed in to: its tokens are the subject tokens. */
const frontend = () => createClient(["svc_api_user"], { grantTypes: [GRANT.authorizationCode, GRANT.refreshToken] });

/** A back end allowed to exchange tokens of the management API and to ask for one listed resource. */
async function backend(extra: Parameters<typeof createClient>[1] = {}) {
  const listed = `https://${uniqueId("svc-")}.example/api`;
  const client = await createClient(["svc_api_user", "svc_groups"], {
    grantTypes: [GRANT.tokenExchange, GRANT.clientCredentials],
    exchangeFrom: [issuer],
    resources: [listed],
    ...extra,
  });
  return { ...client, listed };
}

/** A signed-in user of `clientId`, with a live session behind the token. */
async function signedInUser(clientId: string, scopes = ["openid", "svc_api_user"], ttlSeconds = 600) {
  const account = await seedAccount();
  const minted = await mintUserToken(account.sub, clientId, scopes, ttlSeconds);
  return { sub: account.sub, ...minted };
}

/** The exchange through openid-client, as a back end written against a library does it. */
async function exchangeWithLibrary(client: { clientId: string; secret: string }, parameters: Record<string, string>) {
  const configuration = await oidc.discovery(
    new URL(issuer),
    client.clientId,
    {},
    oidc.ClientSecretBasic(client.secret),
    {
      execute: [oidc.allowInsecureRequests],
    },
  );
  return oidc.genericGrantRequest(configuration, GRANT.tokenExchange, parameters);
}

/** The exchange by plain HTTP: status and body, as a refusal is checked. */
async function exchange(client: { clientId: string; secret: string }, parameters: Record<string, string>) {
  const response = await fetch(`${issuer}/oauth/te`, {
    method: "POST",
    headers: {
      authorization: basicAuthorization(client.clientId, client.secret),
      "content-type": "application/x-www-form-urlencoded",
    },
    body: new URLSearchParams({ grant_type: GRANT.tokenExchange, ...parameters }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const jwks = () => createRemoteJWKSet(new URL(`${issuer}/.well-known/jwks.json`));

/** The claims of a token we issued, checked as a resource server checks them. */
async function verified(token: string, audience: string) {
  const { payload } = await jwtVerify(token, jwks(), { issuer, audience, typ: "at+jwt" });
  return payload;
}

async function introspect(client: { clientId: string; secret: string }, token: string) {
  const response = await fetch(`${issuer}/oauth/introspect`, {
    method: "POST",
    headers: {
      authorization: basicAuthorization(client.clientId, client.secret),
      "content-type": "application/x-www-form-urlencoded",
    },
    body: new URLSearchParams({ token }),
  });
  return (await response.json()) as Record<string, unknown>;
}

describe("token exchange (RFC 8693), the exchanged token", () => {
  it("impersonation: a user token of another client becomes the back end's, narrower, never outliving the subject", async () => {
    const [web, api] = [await frontend(), await backend()];
    // The subject lives a minute, less than an access token does.
    const user = await signedInUser(web.clientId, ["openid", "svc_api_user"], 60);
    expect(config().settings.tokens.accessTtlSeconds).toBeGreaterThan(60);

    const answer = await exchangeWithLibrary(api, {
      subject_token: user.token,
      subject_token_type: AT,
      scope: "svc_api_user",
    });
    expect(answer).toMatchObject({ issued_token_type: AT, token_type: "bearer", scope: "svc_api_user" });
    expect(answer.refresh_token).toBeUndefined();
    expect(answer.expires_in).toBeLessThanOrEqual(60);

    const claims = await verified(answer.access_token, "svc-api");
    const subject = decodeJwt(user.token);
    expect(claims).toMatchObject({ sub: user.sub, client_id: api.clientId, scope: "svc_api_user", sid: user.sid });
    expect(claims.ua_id).toBe(user.uaId);
    expect(claims.act).toBeUndefined();
    expect(claims.exp).toBeLessThanOrEqual(subject.exp as number);
    // It works where the subject did: the user's own account.
    const read = await readOwnAccount(user.sub, answer.access_token);
    expect(read.statusCode, read.body).toBe(200);
  });

  it("discovery names the grant", async () => {
    const response = await fetch(`${issuer}/.well-known/openid-configuration`);
    const metadata = (await response.json()) as { grant_types_supported: string[] };
    expect(metadata.grant_types_supported).toContain(GRANT.tokenExchange);
  });

  it("scope omitted: all of the subject's scopes the target admits; a listed resource is the audience asked for", async () => {
    const [web, api] = [await frontend(), await backend()];
    const user = await signedInUser(web.clientId);
    const all = await exchange(api, { subject_token: user.token, subject_token_type: AT });
    expect(all).toMatchObject({ status: 200, body: { scope: "openid svc_api_user" } });

    const forListed = await exchange(api, { subject_token: user.token, subject_token_type: AT, audience: api.listed });
    expect(forListed.status, JSON.stringify(forListed.body)).toBe(200);
    expect(await verified(String(forListed.body.access_token), api.listed)).toMatchObject({ aud: api.listed });
  });

  it("delegation: the actor token names the back end in act, and a second hop nests the first actor inside", async () => {
    const [web, first, second] = [await frontend(), await backend(), await backend()];
    const user = await signedInUser(web.clientId);
    const hop1 = await exchangeWithLibrary(first, {
      subject_token: user.token,
      subject_token_type: AT,
      actor_token: await systemToken([], first.clientId),
      actor_token_type: AT,
    });
    expect(await verified(hop1.access_token, "svc-api")).toMatchObject({
      sub: user.sub,
      client_id: first.clientId,
      act: { sub: first.clientId, client_id: first.clientId },
    });

    const hop2 = await exchangeWithLibrary(second, {
      subject_token: hop1.access_token,
      subject_token_type: AT,
      actor_token: await systemToken([], second.clientId),
      actor_token_type: AT,
      scope: "svc_api_user",
    });
    const claims = await verified(hop2.access_token, "svc-api");
    expect(claims.act).toEqual({
      sub: second.clientId,
      client_id: second.clientId,
      act: { sub: first.clientId, client_id: first.clientId },
    });
    expect(claims.exp).toBeLessThanOrEqual(decodeJwt(hop1.access_token).exp as number);
    // Without an actor token, the subject's own act stays: the delegation is not forgotten.
    const plain = await exchange(second, { subject_token: hop1.access_token, subject_token_type: AT });
    expect(decodeJwt(String(plain.body.access_token)).act).toEqual({ sub: first.clientId, client_id: first.clientId });
    // Introspection shows the chain to the token's client.
    expect(await introspect(second, hop2.access_token)).toMatchObject({
      active: true,
      sub: user.sub,
      act: claims.act,
    });
  });

  it("ending the user's sessions ends the exchanged token too, and the subject can no longer be exchanged", async () => {
    const [web, api] = [await frontend(), await backend()];
    const user = await signedInUser(web.clientId);
    const exchanged = await exchange(api, { subject_token: user.token, subject_token_type: AT });
    expect(exchanged.status).toBe(200);
    expect(await introspect(api, String(exchanged.body.access_token))).toMatchObject({ active: true });

    const reset = await request("devices", "events/devices/sessions-reset.json", {
      params: { subjectId: user.sub },
      // A system caller keeps no session: every one of the user's ends.
      values: { keepDeviceId: "none" },
      authorization: await systemBearer(["svc_api_sys_usec_chg"]),
    });
    expect(reset.statusCode, reset.body).toBe(204);

    expect(await introspect(api, String(exchanged.body.access_token))).toEqual({ active: false });
    expect(await exchange(api, { subject_token: user.token, subject_token_type: AT })).toMatchObject({
      status: 400,
      body: { error: "invalid_request", error_description: "the subject token's session has ended" },
    });
  });
});

describe("token exchange sample events", () => {
  it("the exchange answers a narrower token of the requester; the wider scope is invalid_scope", async () => {
    const api = await backend();
    await seedAccount({ sub: "sample-user" });
    const values = { clientId: api.clientId, clientBasic: basicCredentials(api.clientId, api.secret) };
    const exchanged = await request("token", "events/token/token-exchange.json", { values });
    expect(exchanged.statusCode, exchanged.body).toBe(200);
    expect(exchanged.json).toMatchObject({ issued_token_type: AT, scope: "svc_api_user" });
    expect(decodeJwt(String(exchanged.json.access_token))).toMatchObject({
      sub: "sample-user",
      client_id: api.clientId,
    });
    const wider = await request("token", "events/token/token-exchange-wider-scope.json", { values });
    expect(wider.statusCode).toBe(400);
    expect(wider.json).toMatchObject({ error: "invalid_scope" });
  });
});

describe("token exchange (RFC 8693), refusals", () => {
  it("a scope the subject token lacks is invalid_scope, even one granted to the back end", async () => {
    const [web, api] = [await frontend(), await backend()];
    const user = await signedInUser(web.clientId, ["svc_api_user"]);
    const wider = await exchange(api, {
      subject_token: user.token,
      subject_token_type: AT,
      scope: "svc_api_user svc_groups",
    });
    expect(wider).toMatchObject({ status: 400, body: { error: "invalid_scope" } });
    expect(wider.body.error_description).toContain("svc_groups");
    expect(JSON.stringify(wider.body)).not.toContain(user.token);
  });

  it("an audience the back end may not ask for is invalid_target; resource and audience that differ too", async () => {
    const [web, api] = [await frontend(), await backend()];
    const user = await signedInUser(web.clientId);
    const base = { subject_token: user.token, subject_token_type: AT };
    expect(await exchange(api, { ...base, resource: FOREIGN })).toMatchObject({
      status: 400,
      body: { error: "invalid_target" },
    });
    expect(await exchange(api, { ...base, resource: api.listed, audience: FOREIGN })).toMatchObject({
      status: 400,
      body: { error: "invalid_target" },
    });
  });

  it("a subject token of another client for an audience not in exchangeFrom is refused", async () => {
    const [web, api] = [await frontend(), await backend({ exchangeFrom: [] })];
    const user = await signedInUser(web.clientId);
    expect(await exchange(api, { subject_token: user.token, subject_token_type: AT })).toMatchObject({
      status: 400,
      body: { error: "invalid_request", error_description: `this client may not exchange tokens for ${issuer}` },
    });
    // A token for a foreign resource, though the back end may exchange the management API's.
    const other = await backend();
    const { token } = await services().accessTokens.issue({
      sub: web.clientId,
      clientId: web.clientId,
      scopes: ["svc_api_user"],
      ttlSeconds: 600,
      audience: FOREIGN,
    });
    expect(await exchange(other, { subject_token: token, subject_token_type: AT })).toMatchObject({
      status: 400,
      body: { error: "invalid_request", error_description: `this client may not exchange tokens for ${FOREIGN}` },
    });
    // Its own token it may always exchange, narrower.
    const own = await systemToken(["svc_groups", "svc_api_user"], api.clientId);
    expect(await exchange(api, { subject_token: own, subject_token_type: AT, scope: "svc_groups" })).toMatchObject({
      status: 200,
      body: { scope: "svc_groups" },
    });
  });

  it("a client not registered for the grant is unauthorized_client", async () => {
    const web = await frontend();
    const user = await signedInUser(web.clientId);
    const plain = await createClient(["svc_api_user"], {
      grantTypes: [GRANT.clientCredentials],
      exchangeFrom: [issuer],
    });
    expect(await exchange(plain, { subject_token: user.token, subject_token_type: AT })).toMatchObject({
      status: 400,
      body: { error: "unauthorized_client" },
    });
  });

  it("an expired or forged subject token is invalid_request, never 401 or 500", async () => {
    const api = await backend();
    const user = await seedAccount();
    const { token: expired } = await services().accessTokens.issue({
      sub: user.sub,
      clientId: api.clientId,
      scopes: ["svc_api_user"],
      ttlSeconds: -60,
    });
    expect(await exchange(api, { subject_token: expired, subject_token_type: AT })).toMatchObject({
      status: 400,
      body: { error: "invalid_request", error_description: "the subject token has expired" },
    });
    const forged = (await forgedTokens("svc_api_user"))["wrong signature"];
    expect(await exchange(api, { subject_token: forged, subject_token_type: AT })).toMatchObject({
      status: 400,
      body: {
        error: "invalid_request",
        error_description: "the subject token is not a valid access token of this issuer",
      },
    });
  });

  it("an actor token of another client is refused: the requester must be the actor", async () => {
    const [web, api] = [await frontend(), await backend()];
    const user = await signedInUser(web.clientId);
    const refused = await exchange(api, {
      subject_token: user.token,
      subject_token_type: AT,
      actor_token: await systemToken([], web.clientId),
      actor_token_type: AT,
    });
    expect(refused).toMatchObject({
      status: 400,
      body: { error: "invalid_request", error_description: "the actor token must be one issued to this client" },
    });
  });

  it.each([
    ["another subject_token_type", { subject_token_type: "urn:ietf:params:oauth:token-type:jwt" }],
    ["no subject_token_type", {}],
    [
      "a refresh token requested",
      { subject_token_type: AT, requested_token_type: "urn:ietf:params:oauth:token-type:refresh_token" },
    ],
    ["an actor token without its type", { subject_token_type: AT, actor_token: "x" }],
  ])("%s is invalid_request naming what is supported", async (_, parameters) => {
    const [web, api] = [await frontend(), await backend()];
    const user = await signedInUser(web.clientId);
    const refused = await exchange(api, { subject_token: user.token, ...parameters });
    expect(refused).toMatchObject({ status: 400, body: { error: "invalid_request" } });
    expect(refused.body.error_description).toMatch(
      /token_type (is required|must be urn:ietf:params:oauth:token-type:access_token)/,
    );
  });

  it("no subject token is invalid_request", async () => {
    const api = await backend();
    expect(await exchange(api, { subject_token_type: AT })).toMatchObject({
      status: 400,
      body: { error: "invalid_request", error_description: "subject_token is required" },
    });
  });
});

describe("exchangeFrom in the clients API (interface §4.17)", () => {
  const CHANGE = ["svc_api_sys_clients_chg", "svc_api_sys_clients", "svc_api_sys_users"];

  it("is stored, shown, changed and checked; the grant is refused to a public client and nothing is stored", async () => {
    const clientId = uniqueId("exchanger-");
    const created = await request("clients", "events/clients/create.json", {
      body: { clientId, scopes: ["svc_api_sys_users"], grantTypes: [GRANT.tokenExchange], exchangeFrom: [FOREIGN] },
      authorization: await systemBearer(CHANGE),
    });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json).toMatchObject({ exchangeFrom: [FOREIGN], grantTypes: [GRANT.tokenExchange] });
    expect(await storedItem(keys.client(clientId))).toMatchObject({ exchangeFrom: [FOREIGN] });

    const changed = await request("clients", "events/clients/change.json", {
      params: { clientId },
      body: { exchangeFrom: [issuer] },
      authorization: await systemBearer(CHANGE),
    });
    expect(changed.statusCode, changed.body).toBe(200);
    expect((await storedItem(keys.client(clientId)))?.exchangeFrom).toEqual([issuer]);
    const read = await request("clients", "events/clients/get.json", {
      params: { clientId },
      authorization: await systemBearer(CHANGE),
    });
    expect(read.json.exchangeFrom).toEqual([issuer]);

    const relative = await request("clients", "events/clients/change.json", {
      params: { clientId },
      body: { exchangeFrom: ["reports"] },
      authorization: await systemBearer(CHANGE),
    });
    expect(relative.statusCode).toBe(400);
    expect(relative.json).toMatchObject({ errors: [{ error: "wrong_value", pos: "exchangeFrom" }] });
    expect((await storedItem(keys.client(clientId)))?.exchangeFrom).toEqual([issuer]);

    const publicId = uniqueId("spa-");
    const publicClient = await request("clients", "events/clients/create.json", {
      body: {
        clientId: publicId,
        public: true,
        scopes: ["svc_api_user"],
        redirectUris: ["https://spa.example/cb"],
        grantTypes: [GRANT.authorizationCode, GRANT.tokenExchange],
      },
      authorization: await systemBearer(CHANGE),
    });
    expect(publicClient.statusCode).toBe(400);
    expect(publicClient.json).toMatchObject({ errors: [{ error: "wrong_value", pos: "grantTypes" }] });
    expect(await storedItem(keys.client(publicId))).toBeUndefined();
  });

  it("svc-admin clients create --exchange-from stores it; the grant on a public client is refused", async () => {
    const cli = (id: string, ...more: string[]) =>
      svcAdmin("clients", "create", "--id", id, "--scopes", "svc_api_user", ...more);
    const id = uniqueId("cli-");
    const created = await cli(id, "--grant-types", GRANT.tokenExchange, "--exchange-from", issuer);
    expect(created.code, created.stderr).toBe(0);
    expect((await services().clients.get(id))?.exchangeFrom).toEqual([issuer]);
    const publicId = uniqueId("cli-");
    const grants = `authorization_code ${GRANT.tokenExchange}`;
    const refused = await cli(
      publicId,
      "--public",
      "--redirect-uris",
      "https://spa.example/cb",
      "--grant-types",
      grants,
    );
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain("a public client may only use");
    expect(await services().clients.get(publicId)).toBeUndefined();
  });

  it("a client may not widen its own exchangeFrom", async () => {
    const { clientId } = await createClient(["svc_api_sys_clients_chg", "svc_api_sys_clients"]);
    const own = await request("clients", "events/clients/change.json", {
      params: { clientId },
      body: { exchangeFrom: [FOREIGN] },
      authorization: await systemBearer(["svc_api_sys_clients_chg", "svc_api_sys_clients"], clientId),
    });
    expect(own.statusCode).toBe(400);
    expect(own.json).toMatchObject({ error: "own_client" });
    expect((await storedItem(keys.client(clientId)))?.exchangeFrom).toEqual([]);
  });
});
