import { QueryCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import * as oidc from "openid-client";
import { afterEach, describe, expect, it } from "vitest";
import { config } from "../../lib/config";
import { services } from "../../lib/container";
import { documentClient } from "../../lib/document-client";
import { digestSecret } from "../../lib/domain/credentials/secret-digest";
import { keys } from "../../lib/store/keys";
import { seedAccount, systemBearer } from "../support/fixtures";
import { PASSWORD, useHostedSignIn } from "../support/hosted-sign-in";
import { useSettings } from "../support/oauth-provider";
import { storedItem } from "../support/stored";
import { svcAdmin } from "../support/svc-admin";

/**
 * OAuth 2.0 Dynamic Client Registration (RFC 7591) and Management (RFC 7592), driven as an
 * agent or a CLI would: openid-client registers, then signs a user in through chromium.
 */

const { issuer, rp, startAuthorization, fillSignInForm, backAtClient, allowAndRedeem } = await useHostedSignIn();

const endpoint = () => `${issuer}/oauth/clients`;
const OPEN = { mode: "open", scopes: ["svc_api_user"], unusedDays: 30, perAddressPerHour: 50 };

afterEach(() => useSettings({}));

/** A registration by plain HTTP: the status, the body and the WWW-Authenticate challenge. */
async function register(metadata: Record<string, unknown>, bearer?: string) {
  const response = await fetch(endpoint(), {
    method: "POST",
    headers: { "content-type": "application/json", ...(bearer && { authorization: `Bearer ${bearer}` }) },
    body: JSON.stringify(metadata),
  });
  return {
    status: response.status,
    body: (await response.json()) as Record<string, unknown>,
    challenge: response.headers.get("www-authenticate"),
  };
}

/** The registered clients the service holds now, by id. */
async function registeredIds(): Promise<Set<string>> {
  return new Set((await services().clients.list()).filter((c) => c.registration).map((c) => c.clientId));
}

describe("dynamic client registration (RFC 7591)", () => {
  it("an application registers with openid-client, the user consents to it by name and host, and it gets and refreshes tokens", async () => {
    useSettings({ clientRegistration: OPEN });
    const redirectUri = `${rp.url()}/cb`;
    const party = await oidc.dynamicClientRegistration(
      new URL(issuer),
      {
        client_name: "Notes Agent",
        redirect_uris: [redirectUri],
        grant_types: ["authorization_code", "refresh_token"],
        token_endpoint_auth_method: "client_secret_basic",
        scope: "openid offline_access svc_api_user",
      },
      undefined,
      { execute: [oidc.allowInsecureRequests] },
    );
    expect(party.serverMetadata().registration_endpoint).toBe(endpoint());
    const registered = party.clientMetadata();
    expect(registered).toMatchObject({
      client_name: "Notes Agent",
      redirect_uris: [redirectUri],
      token_endpoint_auth_method: "client_secret_basic",
      client_secret_expires_at: 0,
      registration_client_uri: `${endpoint()}/${registered.client_id}`,
    });
    // Stored third-party, marked as registered, with digests only and a removal time.
    const stored = await storedItem(keys.client(registered.client_id));
    expect(stored).toMatchObject({
      firstParty: false,
      scopes: ["svc_api_user"],
      registration: { via: "open", clientName: "Notes Agent", tokenEndpointAuthMethod: "client_secret_basic" },
      secretHash: digestSecret(String(registered.client_secret)),
      registrationTokenHash: digestSecret(String(registered.registration_access_token)),
    });
    expect(Number(stored?.expiresAt)).toBeGreaterThan(Date.now() / 1000 + 29 * 86_400);

    const account = await seedAccount({}, PASSWORD);
    const started = await startAuthorization(party, redirectUri, {
      scope: "openid offline_access svc_api_user",
      prompt: "consent",
    });
    const host = new URL(rp.url()).host;
    const { tokens, note } = await allowAndRedeem(party, started, account.sub, `Notes Agent (${host}) asks to:`);
    expect(note).toContain(`Allow only if you trust ${host}.`);
    expect(tokens.claims()).toMatchObject({ sub: account.sub, aud: registered.client_id });
    const refreshed = await oidc.refreshTokenGrant(party, String(tokens.refresh_token));
    expect(refreshed.access_token).toEqual(expect.any(String));

    // The registration is an event of the new client, naming how it came in and no secret.
    const { Items: [event] = [] } = await documentClient().send(
      new QueryCommand({
        TableName: config().tableName,
        KeyConditionExpression: "PK = :pk",
        ExpressionAttributeValues: { ":pk": keys.clientSecurityEvent(registered.client_id, 0, "").PK },
        ConsistentRead: true,
      }),
    );
    expect(event).toMatchObject({ type: "client-registered", cId: registered.client_id, prms: { via: "open" } });
    expect(JSON.stringify(event)).not.toContain(String(registered.client_secret));
  });

  it("a public client registers with token_endpoint_auth_method none and gets no secret", async () => {
    useSettings({ clientRegistration: OPEN });
    const { status, body } = await register({
      redirect_uris: ["http://127.0.0.1:40111/callback"],
      token_endpoint_auth_method: "none",
      client_name: "CLI",
    });
    expect(status).toBe(201);
    expect(body).not.toHaveProperty("client_secret");
    expect(body).not.toHaveProperty("client_secret_expires_at");
    expect(await storedItem(keys.client(String(body.client_id)))).toMatchObject({ public: true, secretHash: "none" });
  });

  it("is closed unless the operator opens it: 403, and discovery names no registration endpoint", async () => {
    const before = await registeredIds();
    const { status, body } = await register({ redirect_uris: ["https://agent.example/cb"] });
    expect(status).toBe(403);
    expect(body.error).toBe("access_denied");
    const discovery = (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as object;
    expect(discovery).not.toHaveProperty("registration_endpoint");
    expect(await registeredIds()).toEqual(before);
  });

  it("refuses what the policy does not open, in RFC 7591's words, storing nothing", async () => {
    useSettings({ clientRegistration: OPEN });
    const before = await registeredIds();
    const cases: [Record<string, unknown>, string, string][] = [
      [{ redirect_uris: ["com.example.app:/cb"] }, "invalid_redirect_uri", "https or loopback"],
      [{ redirect_uris: ["http://agent.example/cb"] }, "invalid_redirect_uri", "https or loopback"],
      [{}, "invalid_redirect_uri", "redirect_uris is required"],
      [{ redirect_uris: ["https://a.example/cb#x"] }, "invalid_redirect_uri", "https://a.example/cb#x"],
      [
        { redirect_uris: ["https://a.example/cb"], scope: "svc_api_sys_users" },
        "invalid_client_metadata",
        "svc_api_sys_users",
      ],
      [
        { redirect_uris: ["https://a.example/cb"], scope: "svc_api_user_chg" },
        "invalid_client_metadata",
        "svc_api_user_chg",
      ],
      [
        { redirect_uris: ["https://a.example/cb"], grant_types: ["client_credentials"] },
        "invalid_client_metadata",
        "client_credentials",
      ],
      [{ redirect_uris: ["https://a.example/cb"], grant_types: ["password"] }, "invalid_client_metadata", "password"],
      [
        { redirect_uris: ["https://a.example/cb"], response_types: ["token"] },
        "invalid_client_metadata",
        "response_types",
      ],
      [
        { redirect_uris: ["https://a.example/cb"], token_endpoint_auth_method: "private_key_jwt" },
        "invalid_client_metadata",
        "token_endpoint_auth_method",
      ],
      [
        { redirect_uris: ["https://a.example/cb"], logo_uri: "javascript:alert(1)" },
        "invalid_client_metadata",
        "logo_uri",
      ],
      [{ redirect_uris: "https://a.example/cb" }, "invalid_client_metadata", "redirect_uris"],
      [
        { redirect_uris: ["https://a.example/cb"], client_name: "x".repeat(500) },
        "invalid_client_metadata",
        "client_name",
      ],
    ];
    for (const [metadata, error, words] of cases) {
      const { status, body } = await register(metadata);
      expect({ metadata, status, error: body.error }).toEqual({ metadata, status: 400, error });
      expect(String(body.error_description)).toContain(words);
    }
    expect(await registeredIds()).toEqual(before);
  });

  it("without an initial access token, one address registers at most perAddressPerHour clients", async () => {
    useSettings({ clientRegistration: { ...OPEN, perAddressPerHour: 3 } });
    // The local gateway's clients all come from 127.0.0.1; earlier tests counted against it this hour.
    const hour = Math.floor(Date.now() / 3_600_000);
    const counted = await storedItem(keys.clientRegistrationsFromAddress("127.0.0.1", hour));
    const left = Math.max(0, 3 - Number(counted?.count ?? 0));
    const answers = await Promise.all(
      Array.from({ length: left + 3 }, () => register({ redirect_uris: ["https://a.example/cb"] })),
    );
    expect(answers.filter((a) => a.status === 201)).toHaveLength(left);
    const refused = answers.filter((a) => a.status === 429);
    expect(refused).toHaveLength(3);
    expect(refused[0].body.error_description).toContain("too many registrations");
  });
});

describe("initial access tokens (settings.clientRegistration.mode token)", () => {
  it("without one the endpoint asks for it; one of 2 uses admits exactly 2 of 5 concurrent registrations", async () => {
    useSettings({ clientRegistration: { ...OPEN, mode: "token" } });
    const none = await register({ redirect_uris: ["https://a.example/cb"] });
    expect(none).toMatchObject({ status: 401, body: { error: "invalid_token" }, challenge: 'Bearer realm="svc"' });

    const issued = await fetch(`${issuer.replace(/\/svc$/, "")}/svc/admin/api/v3/clients/initial-access-tokens`, {
      method: "POST",
      headers: { authorization: await systemBearer(["svc_api_sys_clients_chg"]), "content-type": "application/json" },
      body: JSON.stringify({ uses: 2, days: 1 }),
    });
    expect(issued.status).toBe(201);
    const { token, uses, expiresAt } = (await issued.json()) as { token: string; uses: number; expiresAt: number };
    expect(uses).toBe(2);
    expect(expiresAt).toBeGreaterThan(Date.now() / 1000 + 86_000);
    expect(await storedItem(keys.initialAccessToken(digestSecret(token)))).toMatchObject({ remaining: 2, uses: 2 });

    // A private-use scheme is a native app's: the operator vouched for it with the token.
    const answers = await Promise.all(
      Array.from({ length: 5 }, () =>
        register({ redirect_uris: ["com.example.notes:/cb"], token_endpoint_auth_method: "none" }, token),
      ),
    );
    const admitted = answers.filter((a) => a.status === 201);
    expect(admitted).toHaveLength(2);
    for (const refused of answers.filter((a) => a.status !== 201)) {
      expect(refused).toMatchObject({ status: 401, body: { error: "invalid_token" } });
      expect(refused.challenge).toBe('Bearer realm="svc", error="invalid_token"');
    }
    for (const { body } of admitted)
      expect(await storedItem(keys.client(String(body.client_id)))).toMatchObject({ registration: { via: "token" } });
    expect(await storedItem(keys.initialAccessToken(digestSecret(token)))).toMatchObject({ remaining: 0 });
  });

  it("svc-admin clients initial-token prints one that opens registration", async () => {
    useSettings({ clientRegistration: { ...OPEN, mode: "token" } });
    const run = await svcAdmin("clients", "initial-token", "--uses", "1", "--days", "2");
    expect(run.code).toBe(0);
    const token = run.stdout.trim();
    expect(run.stderr).toMatch(/good for 1 registration\(s\) until \d{4}-/);
    const first = await register({ redirect_uris: ["https://a.example/cb"] }, token);
    expect(first.status).toBe(201);
    expect((await register({ redirect_uris: ["https://a.example/cb"] }, token)).status).toBe(401);
    expect((await svcAdmin("clients", "initial-token", "--uses", "0")).code).toBe(2);
  });
});

describe("client configuration (RFC 7592)", () => {
  async function registered() {
    useSettings({ clientRegistration: OPEN });
    const { body } = await register({
      redirect_uris: ["https://agent.example/cb"],
      client_name: "Agent",
      contacts: ["ops@agent.example"],
    });
    return {
      id: String(body.client_id),
      secret: String(body.client_secret),
      token: String(body.registration_access_token),
      uri: String(body.registration_client_uri),
    };
  }

  const call = async (uri: string, method: string, token?: string, body?: unknown) => {
    const response = await fetch(uri, {
      method,
      headers: {
        ...(token && { authorization: `Bearer ${token}` }),
        ...(body !== undefined && { "content-type": "application/json" }),
      },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
  };

  it("reads and replaces its registration with its token; another's token or a wrong one is refused alike", async () => {
    const mine = await registered();
    const other = await registered();
    const read = await call(mine.uri, "GET", mine.token);
    expect(read).toMatchObject({
      status: 200,
      body: {
        client_id: mine.id,
        client_name: "Agent",
        contacts: ["ops@agent.example"],
        registration_access_token: mine.token,
      },
    });
    expect(read.body).not.toHaveProperty("client_secret");
    for (const token of [other.token, "wrong", undefined]) {
      const refused = await call(mine.uri, "GET", token);
      expect(refused).toMatchObject({ status: 401, body: { error: "invalid_token" } });
    }
    // Unknown client, same answer: nothing to enumerate.
    expect(await call(`${endpoint()}/no-such-client`, "GET", mine.token)).toMatchObject({ status: 401 });
    // A malformed id is a bad request, not bad metadata.
    expect(await call(`${endpoint()}/-bad`, "GET", mine.token)).toMatchObject({
      status: 400,
      body: { error: "invalid_request" },
    });

    const replaced = await call(mine.uri, "PUT", mine.token, {
      client_id: mine.id,
      client_secret: mine.secret,
      redirect_uris: ["https://agent.example/cb2"],
      client_name: "Agent 2",
    });
    expect(replaced).toMatchObject({
      status: 200,
      body: { client_name: "Agent 2", redirect_uris: ["https://agent.example/cb2"], client_secret: mine.secret },
    });
    expect(replaced.body).not.toHaveProperty("contacts");
    expect(await storedItem(keys.client(mine.id))).toMatchObject({
      redirectUris: ["https://agent.example/cb2"],
      registration: { clientName: "Agent 2", via: "open" },
    });
    expect((await storedItem(keys.client(mine.id)))?.registration).not.toHaveProperty("contacts");

    // The same policy as at registration, and nothing changed by a refused update.
    const widened = await call(mine.uri, "PUT", mine.token, {
      client_id: mine.id,
      redirect_uris: ["https://agent.example/cb2"],
      grant_types: ["authorization_code", "client_credentials"],
    });
    expect(widened).toMatchObject({ status: 400, body: { error: "invalid_client_metadata" } });
    const wrongSecret = await call(mine.uri, "PUT", mine.token, {
      client_id: mine.id,
      client_secret: "not-the-secret",
      redirect_uris: ["https://agent.example/cb3"],
    });
    expect(wrongSecret).toMatchObject({ status: 400, body: { error: "invalid_request" } });
    const wrongId = await call(mine.uri, "PUT", mine.token, {
      client_id: other.id,
      redirect_uris: ["https://x.example/cb"],
    });
    expect(wrongId).toMatchObject({ status: 400, body: { error: "invalid_request" } });
    expect(await storedItem(keys.client(mine.id))).toMatchObject({
      grantTypes: ["authorization_code"],
      redirectUris: ["https://agent.example/cb2"],
    });
  });

  it("deletes its registration; the client then gets no token and its token manages nothing", async () => {
    const mine = await registered();
    expect(await call(mine.uri, "DELETE", mine.token)).toMatchObject({ status: 204 });
    expect(await storedItem(keys.client(mine.id))).toBeUndefined();
    expect(await call(mine.uri, "GET", mine.token)).toMatchObject({ status: 401 });
    const token = await fetch(`${issuer}/oauth/te`, {
      method: "POST",
      headers: { authorization: `Basic ${Buffer.from(`${mine.id}:${mine.secret}`).toString("base64")}` },
      body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: "x" }),
    });
    expect(token.status).toBe(401);
  });

  it("a registered client unused past its time is gone; getting tokens moves its time on", async () => {
    const mine = await registered();
    // As a deleted client, an expired one is seen by warm functions within clients.cacheSeconds.
    useSettings({ clientRegistration: OPEN, clients: { cacheSeconds: 0 } });
    const now = Math.floor(Date.now() / 1000);
    const setExpiry = (expiresAt: number) =>
      documentClient().send(
        new UpdateCommand({
          TableName: config().tableName,
          Key: keys.client(mine.id),
          UpdateExpression: "SET expiresAt = :e",
          ExpressionAttributeValues: { ":e": expiresAt },
        }),
      );
    // Two days short of its 30 unused days: the next token moves it on to a full 30.
    await setExpiry(now + 28 * 86_400);
    const party = await oidc.discovery(
      new URL(issuer),
      mine.id,
      { client_secret: mine.secret },
      oidc.ClientSecretBasic(mine.secret),
      {
        execute: [oidc.allowInsecureRequests],
      },
    );
    const account = await seedAccount({}, PASSWORD);
    await services().clients.update(mine.id, { redirectUris: [`${rp.url()}/cb`], updatedAt: now }, {}, []);
    const started = await startAuthorization(party, `${rp.url()}/cb`, { scope: "openid svc_api_user" });
    const { context, page } = await fillSignInForm(started.url, account.sub);
    await page.getByRole("button", { name: "Allow" }).click();
    const callback = await backAtClient(page);
    await context.close();
    await oidc.authorizationCodeGrant(party, callback, {
      pkceCodeVerifier: started.verifier,
      expectedState: started.state,
      expectedNonce: started.nonce,
    });
    expect(Number((await storedItem(keys.client(mine.id)))?.expiresAt)).toBeGreaterThanOrEqual(now + 30 * 86_400);

    // Past its time, it is unknown everywhere before DynamoDB's TTL deletes it.
    await setExpiry(now - 1);
    expect(await services().clients.get(mine.id)).toBeUndefined();
    expect(await call(mine.uri, "GET", mine.token)).toMatchObject({ status: 401 });
    const refused = await fetch(started.url, { redirect: "manual", headers: { "accept-language": "en" } });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toMatch(/The application is not registered here|Приложение здесь не зарегистрировано/);
  });
});
