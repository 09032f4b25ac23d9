import { createHash, randomUUID } from "node:crypto";
import {
  calculateJwkThumbprint,
  decodeJwt,
  exportJWK,
  generateKeyPair,
  type JWK,
  type JWTPayload,
  SignJWT,
} from "jose";
import * as oauth from "oauth4webapi";
import * as oidc from "openid-client";
import { afterEach, describe, expect, it } from "vitest";
import { GRANT } from "../../lib/domain/clients/client";
import { keys } from "../../lib/store/keys";
import { createClient, seedAccount, systemBearer, userToken } from "../support/fixtures";
import { PASSWORD, useHostedSignIn } from "../support/hosted-sign-in";
import { useSettings } from "../support/oauth-provider";
import { spentBy } from "../support/round-trips";
import { storedItem } from "../support/stored";

/**
 * DPoP (RFC 9449) as integrators use it: openid-client's DPoP handle at the token endpoint,
 * the management API and userinfo; proofs made by hand (jose) for what a library never sends.
 */

const { issuer, relyingParty, startAuthorization, fillSignInForm, backAtClient } = await useHostedSignIn();
const tokenEndpoint = `${issuer}/oauth/te`;
const clientsUrl = `${issuer}/admin/api/v3/clients`;

afterEach(() => useSettings({}));

type KeyPair = Awaited<ReturnType<typeof generateKeyPair>>;

const newKey = () => generateKeyPair("ES256", { extractable: true });
const thumbprintOf = async (key: KeyPair) => calculateJwkThumbprint(await exportJWK(key.publicKey), "sha256");
const accessTokenHash = (token: string) => createHash("sha256").update(token).digest("base64url");

/** A proof as a client makes one; `claims` and `header` override what a correct one holds. */
async function proof(
  key: KeyPair,
  htm: string,
  htu: string,
  claims: JWTPayload = {},
  header: { alg?: string; typ?: string; jwk?: JWK } = {},
) {
  const jwk = await exportJWK(key.publicKey);
  return new SignJWT({ jti: randomUUID(), htm, htu, iat: Math.floor(Date.now() / 1000), ...claims })
    .setProtectedHeader({ alg: "ES256", typ: "dpop+jwt", jwk, ...header })
    .sign(key.privateKey);
}

/** A confidential client that may get system tokens to read clients, as openid-client configures it. */
async function systemClient(extra: Record<string, unknown> = {}) {
  const registered = await createClient(["svc_api_sys_clients"], extra);
  const config = await oidc.discovery(
    new URL(issuer),
    registered.clientId,
    { client_secret: registered.secret },
    oidc.ClientSecretBasic(registered.secret),
    { execute: [oidc.allowInsecureRequests] },
  );
  return { config, ...registered };
}

/** The token endpoint by plain HTTP, with HTTP Basic and an optional DPoP header. */
async function tokenRequest(client: { clientId: string; secret: string }, form: Record<string, string>, dpop?: string) {
  const response = await fetch(tokenEndpoint, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      authorization: `Basic ${Buffer.from(`${client.clientId}:${client.secret}`).toString("base64")}`,
      ...(dpop && { dpop }),
    },
    body: new URLSearchParams(form),
  });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as Record<string, string>,
  };
}

/** GET the clients list with `authorization` and an optional proof. */
async function listClients(authorization: string, dpop?: string) {
  const response = await fetch(clientsUrl, { headers: { authorization, ...(dpop && { dpop }) } });
  return { status: response.status, challenge: response.headers.get("www-authenticate") ?? "" };
}

/** Redeems a code bound to `dpop`'s key: refused with a proof of another key (which spends nothing), then granted. */
async function redeemOnlyWith(
  config: oidc.Configuration,
  callback: URL,
  checks: oidc.AuthorizationCodeGrantChecks,
  dpop: oidc.DPoPHandle,
) {
  const otherKey = oidc.getDPoPHandle(config, await oidc.randomDPoPKeyPair("ES256"));
  await expect(
    oidc.authorizationCodeGrant(config, callback, checks, undefined, { DPoP: otherKey }),
  ).rejects.toMatchObject({ error: "invalid_dpop_proof" });
  return { tokens: await oidc.authorizationCodeGrant(config, callback, checks, undefined, { DPoP: dpop }), otherKey };
}

describe("DPoP-bound access tokens (RFC 9449)", () => {
  it("client_credentials with openid-client's DPoP handle gives a token bound to its key, which the API takes only with a fresh proof of that key", async () => {
    const client = await systemClient();
    const key = await oidc.randomDPoPKeyPair("ES256");
    const dpop = oidc.getDPoPHandle(client.config, key);
    const tokens = await oidc.clientCredentialsGrant(client.config, { scope: "svc_api_sys_clients" }, { DPoP: dpop });
    expect(tokens.token_type).toBe("dpop");
    const jkt = await thumbprintOf(key);
    expect(decodeJwt(tokens.access_token)).toMatchObject({ cnf: { jkt }, client_id: client.clientId });

    // The library's own presentation: Authorization: DPoP with a proof carrying ath.
    const listed = await oidc.fetchProtectedResource(
      client.config,
      tokens.access_token,
      new URL(clientsUrl),
      "GET",
      undefined,
      undefined,
      { DPoP: dpop },
    );
    expect(listed.status).toBe(200);
    expect(((await listed.json()) as { clients: unknown[] }).clients.length).toBeGreaterThan(0);

    // As a Bearer token it is nothing: a thief without the key cannot use it.
    const asBearer = await listClients(`Bearer ${tokens.access_token}`);
    expect(asBearer.status).toBe(401);
    expect(asBearer.challenge).toMatch(/^DPoP error="invalid_token", algs="ES256 /);

    const ath = accessTokenHash(tokens.access_token);
    const good = await proof(key, "GET", clientsUrl, { ath });
    // At the API too, the proof is one write beside what the route reads.
    const asBearerToken = await spentBy(async () => listClients(await systemBearer(["svc_api_sys_clients"])));
    const withProof = await spentBy(() => listClients(`DPoP ${tokens.access_token}`, good));
    expect(withProof.result.status).toBe(200);
    expect(withProof.writes - asBearerToken.writes).toBe(1);
    expect(withProof.reads).toBe(asBearerToken.reads);
    // The proof is spent: its jti is kept under the key's thumbprint until it is too old anyway.
    const { jti, iat } = decodeJwt(good);
    const spent = await storedItem(keys.dpopProof(jkt, jti as string));
    expect(spent).toMatchObject({ entity: "dpop-proof", expiresAt: (iat as number) + 360 });
    const replayed = await listClients(`DPoP ${tokens.access_token}`, good);
    expect(replayed).toMatchObject({
      status: 401,
      challenge: expect.stringMatching(/^DPoP error="invalid_dpop_proof"/),
    });

    // Each flaw alone is refused: another key, another URL, another method, another token, too old, no proof.
    const other = await newKey();
    const refusals = [
      await proof(other, "GET", clientsUrl, { ath }),
      await proof(key, "GET", `${issuer}/api/v3/users`, { ath }),
      await proof(key, "POST", clientsUrl, { ath }),
      await proof(key, "GET", clientsUrl, { ath: accessTokenHash("another token") }),
      await proof(key, "GET", clientsUrl, { ath, iat: Math.floor(Date.now() / 1000) - 600 }),
      undefined,
    ];
    for (const refused of refusals)
      expect((await listClients(`DPoP ${tokens.access_token}`, refused)).status, String(refused)).toBe(401);
    // An unbound token is not taken as DPoP either.
    const unbound = await listClients(
      await systemBearer(["svc_api_sys_clients"]).then((b) => b.replace("Bearer", "DPoP")),
      good,
    );
    expect(unbound.status).toBe(401);

    // Introspection says what the token is: DPoP, with its key.
    const introspected = await oidc.tokenIntrospection(client.config, tokens.access_token);
    expect(introspected).toMatchObject({ active: true, token_type: "DPoP", cnf: { jkt } });
  });

  it("a proof the token endpoint cannot trust is invalid_dpop_proof, and no token, no spent jti come of it", async () => {
    const client = await systemClient();
    const key = await newKey();
    const form = { grant_type: "client_credentials", scope: "svc_api_sys_clients" };
    const { privateKey } = await generateKeyPair("ES256", { extractable: true });
    const bad = [
      "not-a-jwt",
      await proof(key, "GET", tokenEndpoint),
      await proof(key, "POST", `${issuer}/oauth/revoke`),
      await proof(key, "POST", tokenEndpoint, { jti: undefined }),
      await proof(key, "POST", tokenEndpoint, {}, { typ: "JWT" }),
      // A private key in the header is refused: a proof names a public key.
      await proof(key, "POST", tokenEndpoint, {}, { jwk: await exportJWK(privateKey) }),
      await proof(key, "POST", tokenEndpoint, { iat: Math.floor(Date.now() / 1000) + 600 }),
      `${await proof(key, "POST", tokenEndpoint)}, ${await proof(key, "POST", tokenEndpoint)}`,
    ];
    for (const dpop of bad) {
      const refused = await tokenRequest(client, form, dpop);
      expect(refused.status, dpop.slice(0, 40)).toBe(400);
      expect(refused.body.error).toBe("invalid_dpop_proof");
      expect(refused.body.access_token).toBeUndefined();
    }
    // A symmetric key cannot prove possession to anyone else: HS256 proofs are refused.
    const hs = await new SignJWT({
      jti: randomUUID(),
      htm: "POST",
      htu: tokenEndpoint,
      iat: Math.floor(Date.now() / 1000),
    })
      .setProtectedHeader({ alg: "HS256", typ: "dpop+jwt" })
      .sign(new Uint8Array(32));
    expect((await tokenRequest(client, form, hs)).body.error).toBe("invalid_dpop_proof");

    // A proof costs one conditional write, and nothing else: the client's record is cached.
    const unbound = await spentBy(() => tokenRequest(client, form));
    expect(unbound).toMatchObject({ result: { status: 200, body: { token_type: "Bearer" } }, total: 0 });
    const good = await proof(key, "POST", tokenEndpoint);
    const { result: issued, ...spent } = await spentBy(() => tokenRequest(client, form, good));
    expect(issued).toMatchObject({ status: 200, body: { token_type: "DPoP" } });
    expect(spent).toEqual({ total: 1, reads: 0, writes: 1 });
    // The same proof again is a replay.
    const replay = await tokenRequest(client, form, good);
    expect(replay.body).toMatchObject({
      error: "invalid_dpop_proof",
      error_description: expect.stringMatching(/already used/),
    });
    // A refused proof spent nothing: the wrong-method one's jti is free.
    const wrongMethod = decodeJwt(bad[1] as string);
    expect(await storedItem(keys.dpopProof(await thumbprintOf(key), wrongMethod.jti as string))).toBeUndefined();
  });

  it("a client registered with dpopBoundAccessTokens gets no token without a proof; the clients API keeps the setting", async () => {
    const client = await systemClient({ dpopBoundAccessTokens: true });
    const form = { grant_type: "client_credentials", scope: "svc_api_sys_clients" };
    const refused = await tokenRequest(client, form);
    expect(refused).toMatchObject({ status: 400, body: { error: "invalid_dpop_proof" } });
    const issued = await tokenRequest(client, form, await proof(await newKey(), "POST", tokenEndpoint));
    expect(issued.body.token_type).toBe("DPoP");

    // Through the management API: set, read back, stored.
    const admin = await systemBearer(["svc_api_sys_clients", "svc_api_sys_clients_chg"]);
    const created = await fetch(clientsUrl, {
      method: "POST",
      headers: { authorization: admin, "content-type": "application/json" },
      body: JSON.stringify({
        scopes: ["svc_api_user"],
        dpopBoundAccessTokens: true,
        grantTypes: [GRANT.clientCredentials],
      }),
    });
    const body = (await created.json()) as { clientId: string; dpopBoundAccessTokens: boolean };
    expect(created.status).toBe(201);
    expect(body.dpopBoundAccessTokens).toBe(true);
    expect(await storedItem(keys.client(body.clientId))).toMatchObject({ dpopBoundAccessTokens: true });
    const changed = await fetch(`${clientsUrl}/${body.clientId}`, {
      method: "POST",
      headers: { authorization: admin, "content-type": "application/json" },
      body: JSON.stringify({ dpopBoundAccessTokens: false }),
    });
    expect(changed.status).toBe(200);
    expect(await storedItem(keys.client(body.clientId))).toMatchObject({ dpopBoundAccessTokens: false });
  });

  it("a client that registers itself (RFC 7591) may ask for dpop_bound_access_tokens, and reads it back", async () => {
    useSettings({
      clientRegistration: { mode: "open", scopes: ["svc_api_user"], unusedDays: 30, perAddressPerHour: 50 },
    });
    const response = await fetch(`${issuer}/oauth/clients`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        redirect_uris: ["http://127.0.0.1/cb"],
        token_endpoint_auth_method: "none",
        dpop_bound_access_tokens: true,
      }),
    });
    const registered = (await response.json()) as { client_id: string; dpop_bound_access_tokens: boolean };
    expect(response.status).toBe(201);
    expect(registered.dpop_bound_access_tokens).toBe(true);
    expect(await storedItem(keys.client(registered.client_id))).toMatchObject({ dpopBoundAccessTokens: true });
  });

  it("a public client's code flow with DPoP: the code is bound by dpop_jkt, the refresh token to the key, and userinfo takes the bound token", async () => {
    const { config, redirectUri } = await relyingParty({ public: true });
    const account = await seedAccount({}, PASSWORD);
    const key = await oidc.randomDPoPKeyPair("ES256");
    const dpop = oidc.getDPoPHandle(config, key);
    const jkt = await thumbprintOf(key);
    const started = await startAuthorization(config, redirectUri, { dpop_jkt: jkt });
    const { context, page } = await fillSignInForm(started.url, account.sub);
    const callback = await backAtClient(page);
    await context.close();
    const checks = { pkceCodeVerifier: started.verifier, expectedState: started.state, expectedNonce: started.nonce };

    // dpop_jkt: the code is only good with a proof of that key; the refusal does not spend it.
    const { tokens, otherKey } = await redeemOnlyWith(config, callback, checks, dpop);
    expect(tokens.token_type).toBe("dpop");
    expect(decodeJwt(tokens.access_token).cnf).toEqual({ jkt });
    expect(await storedItem(keys.session(account.sub, decodeJwt(tokens.access_token).sid as string))).toMatchObject({
      dpopJkt: jkt,
    });

    const info = await oidc.fetchUserInfo(config, tokens.access_token, account.sub, { DPoP: dpop });
    expect(info.sub).toBe(account.sub);
    const asBearer = await fetch(`${issuer}/oauth/userinfo`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(asBearer.status).toBe(401);
    expect(asBearer.headers.get("www-authenticate")).toMatch(/^Bearer realm="svc", error="invalid_token"/);

    // The refresh token is bound: without the key, or with another, it is refused and stays good.
    const refreshToken = tokens.refresh_token as string;
    await expect(oidc.refreshTokenGrant(config, refreshToken)).rejects.toMatchObject({ error: "invalid_dpop_proof" });
    await expect(oidc.refreshTokenGrant(config, refreshToken, undefined, { DPoP: otherKey })).rejects.toMatchObject({
      error: "invalid_dpop_proof",
    });
    const refreshed = await oidc.refreshTokenGrant(config, refreshToken, undefined, { DPoP: dpop });
    expect(refreshed.token_type).toBe("dpop");
    expect(decodeJwt(refreshed.access_token).cnf).toEqual({ jkt });
  });

  it("a DPoP proof sent with a pushed authorization request (RFC 9126) binds the code to its key", async () => {
    const { config, redirectUri } = await relyingParty({ public: true });
    const account = await seedAccount({}, PASSWORD);
    const dpop = oidc.getDPoPHandle(config, await oidc.randomDPoPKeyPair("ES256"));
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const url = await oidc.buildAuthorizationUrlWithPAR(
      config,
      {
        redirect_uri: redirectUri,
        scope: "svc_api_user",
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: "S256",
        state,
      },
      { DPoP: dpop },
    );
    const { context, page } = await fillSignInForm(url, account.sub);
    const callback = await backAtClient(page);
    await context.close();
    const checks = { pkceCodeVerifier: verifier, expectedState: state };
    const { tokens } = await redeemOnlyWith(config, callback, checks, dpop);
    expect(tokens.token_type).toBe("dpop");
  });

  it("a confidential client's refresh token is not bound (RFC 9449 5): a refresh without a proof gets a Bearer token", async () => {
    const client = await createClient(["svc_api_user"], { grantTypes: [GRANT.password, GRANT.refreshToken] });
    const account = await seedAccount({}, PASSWORD);
    const key = await newKey();
    const signedIn = await tokenRequest(
      client,
      { grant_type: "password", username: account.sub, password: PASSWORD, scope: "svc_api_user" },
      await proof(key, "POST", tokenEndpoint),
    );
    expect(signedIn.body.token_type).toBe("DPoP");
    expect(decodeJwt(signedIn.body.access_token).cnf).toEqual({ jkt: await thumbprintOf(key) });
    const refreshed = await tokenRequest(client, {
      grant_type: "refresh_token",
      refresh_token: signedIn.body.refresh_token,
    });
    expect(refreshed.body.token_type).toBe("Bearer");
    expect(decodeJwt(refreshed.body.access_token).cnf).toBeUndefined();
  });

  it("a token exchange with a proof gives a token bound to the exchanging client's key, keeping the subject's act chain", async () => {
    const client = await createClient(["svc_api_user"], { grantTypes: [GRANT.tokenExchange] });
    const account = await seedAccount({}, PASSWORD);
    const subject = await userToken(account.sub, ["svc_api_user"], client.clientId);
    const key = await newKey();
    const exchanged = await tokenRequest(
      client,
      {
        grant_type: GRANT.tokenExchange,
        subject_token: subject,
        subject_token_type: "urn:ietf:params:oauth:token-type:access_token",
      },
      await proof(key, "POST", tokenEndpoint),
    );
    expect(exchanged.body).toMatchObject({ token_type: "DPoP", scope: "svc_api_user" });
    expect(decodeJwt(exchanged.body.access_token)).toMatchObject({
      sub: account.sub,
      cnf: { jkt: await thumbprintOf(key) },
    });
  });

  it("oauth4webapi: a back end exchanges a user's token with a DPoP proof, then reads the user with the bound token", async () => {
    const registered = await createClient(["svc_api_user"], { grantTypes: [GRANT.tokenExchange] });
    const account = await seedAccount({}, PASSWORD);
    const subject = await userToken(account.sub, ["svc_api_user"], registered.clientId);
    const insecure = { [oauth.allowInsecureRequests]: true };
    const as = await oauth.processDiscoveryResponse(
      new URL(issuer),
      await oauth.discoveryRequest(new URL(issuer), { algorithm: "oidc", ...insecure }),
    );
    const client: oauth.Client = { client_id: registered.clientId };
    const DPoP = oauth.DPoP(client, await oauth.generateKeyPair("ES256"));
    const response = await oauth.genericTokenEndpointRequest(
      as,
      client,
      oauth.ClientSecretBasic(registered.secret),
      GRANT.tokenExchange,
      { subject_token: subject, subject_token_type: "urn:ietf:params:oauth:token-type:access_token" },
      { DPoP, ...insecure },
    );
    const tokens = await oauth.processGenericTokenEndpointResponse(as, client, response);
    expect(tokens.token_type).toBe("dpop");
    expect(tokens.issued_token_type).toBe("urn:ietf:params:oauth:token-type:access_token");
    const read = await oauth.protectedResourceRequest(
      tokens.access_token,
      "GET",
      new URL(`${issuer}/api/v3/users/${account.sub}`),
      undefined,
      undefined,
      { DPoP, ...insecure },
    );
    expect(read.status).toBe(200);
    expect(((await read.json()) as { sub: string }).sub).toBe(account.sub);
  });

  it("with tokens.dpopNonces on, a proof without the server's nonce gets use_dpop_nonce and the nonce, and openid-client retries with it on its own", async () => {
    useSettings({ tokens: { dpopNonces: true } });
    const client = await systemClient();
    const key = await newKey();
    const form = { grant_type: "client_credentials", scope: "svc_api_sys_clients" };
    const asked = await tokenRequest(client, form, await proof(key, "POST", tokenEndpoint));
    expect(asked.body.error).toBe("use_dpop_nonce");
    const nonce = asked.headers.get("dpop-nonce") as string;
    expect(nonce).toMatch(/^\d+\.[A-Za-z0-9_-]+$/);
    expect(
      (await tokenRequest(client, form, await proof(key, "POST", tokenEndpoint, { nonce: `${nonce}x` }))).body.error,
    ).toBe("use_dpop_nonce");
    const issued = await tokenRequest(client, form, await proof(key, "POST", tokenEndpoint, { nonce }));
    expect(issued.body.token_type).toBe("DPoP");
    expect(issued.headers.get("dpop-nonce")).toBe(nonce);

    // A fresh handle knows no nonce: the library learns it from the refusal and sends the request again.
    const handle = oidc.getDPoPHandle(client.config, await oidc.randomDPoPKeyPair("ES256"));
    const tokens = await oidc.clientCredentialsGrant(client.config, { scope: "svc_api_sys_clients" }, { DPoP: handle });
    expect(tokens.token_type).toBe("dpop");
  });

  it("discovery and the management API's resource metadata list the proof algorithms", async () => {
    const discovered = (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as Record<
      string,
      unknown
    >;
    expect(discovered.dpop_signing_alg_values_supported).toEqual(["ES256", "ES384", "EdDSA", "RS256", "PS256"]);
    const resource = (await (
      await fetch(new URL("/.well-known/oauth-protected-resource/svc", issuer))
    ).json()) as Record<string, unknown>;
    expect(resource.dpop_signing_alg_values_supported).toContain("ES256");
  });
});
