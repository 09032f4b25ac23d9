import { decodeJwt, decodeProtectedHeader } from "jose";
import { describe, expect, it } from "vitest";
import { createClient, invoke, sampleEvent, seedAccount } from "../support/fixtures";
import { basicCredentials } from "../support/requests";

async function tokenRequest(form: string, headers: Record<string, string> = {}) {
  const event = await sampleEvent("events/token/client-credentials-form.json", { clientId: "x", clientSecret: "y" });
  event.headers = { "content-type": "application/x-www-form-urlencoded", ...headers };
  event.body = form;
  return invoke("token", event);
}

describe("POST /svc/oauth/te, client_credentials", () => {
  it("when the client authenticates with HTTP Basic, it issues an ES256 at+jwt with the requested scopes", async () => {
    const client = await createClient(["svc_api_sys_users", "svc_api_sys_users_chg"]);
    const event = await sampleEvent("events/token/client-credentials-basic.json", {
      clientBasic: basicCredentials(client.clientId, client.secret),
    });
    const response = await invoke("token", event);
    expect(response.statusCode).toBe(200);
    expect(response.headers["cache-control"]).toBe("no-store");
    expect(response.headers.pragma).toBe("no-cache");
    expect(response.json).toMatchObject({
      token_type: "Bearer",
      expires_in: 3600,
      scope: "svc_api_sys_users svc_api_sys_users_chg",
    });
    const token = response.json.access_token as string;
    expect(decodeProtectedHeader(token)).toMatchObject({ alg: "ES256", typ: "at+jwt" });
    expect(decodeProtectedHeader(token).kid).toEqual(expect.any(String));
    const claims = decodeJwt(token);
    expect(claims).toMatchObject({
      iss: "svc-identity",
      sub: client.clientId,
      client_id: client.clientId,
      scope: "svc_api_sys_users svc_api_sys_users_chg",
    });
    expect(claims.exp! - claims.iat!).toBe(3600);
    expect(claims.jti).toEqual(expect.any(String));
    expect(claims.sid).toBeUndefined();
  });

  it("when a registered resource is asked for, the token is for it alone; any other resource is invalid_target and issues nothing", async () => {
    const billing = "https://billing.example/";
    const client = await createClient(["svc_api_sys_users"], { resources: [billing] });
    const authorization = `Basic ${basicCredentials(client.clientId, client.secret)}`;
    const form = (resource: string) =>
      `grant_type=client_credentials&scope=svc_api_sys_users&resource=${encodeURIComponent(resource)}`;

    const granted = await tokenRequest(form(billing), { authorization });
    expect(granted.statusCode).toBe(200);
    const token = granted.json.access_token as string;
    expect(decodeJwt(token)).toMatchObject({ aud: billing, client_id: client.clientId, scope: "svc_api_sys_users" });
    // The management interface takes tokens for its own audience only.
    const account = await seedAccount();
    const read = await sampleEvent("events/users/get-user-system.json");
    read.pathParameters = { subjectId: account.sub };
    read.rawPath = `/svc/api/v3/users/${account.sub}`;
    read.headers.authorization = `Bearer ${token}`;
    expect((await invoke("users", read)).statusCode).toBe(401);

    for (const resource of ["https://elsewhere.example/", `${billing}other`]) {
      const refused = await tokenRequest(form(resource), { authorization });
      expect(refused.statusCode).toBe(400);
      expect(refused.json).toEqual({ error: "invalid_target", error_description: expect.any(String) });
      expect(refused.json.access_token).toBeUndefined();
    }
    // Without resource, the token stays the management interface's.
    const plain = await tokenRequest("grant_type=client_credentials&scope=svc_api_sys_users", { authorization });
    expect(decodeJwt(plain.json.access_token as string).aud).toBe("svc-api");
  });

  it("when the client authenticates with form fields, it issues a token", async () => {
    const client = await createClient(["svc_api_sys_users"]);
    const event = await sampleEvent("events/token/client-credentials-form.json", {
      clientId: client.clientId,
      clientSecret: client.secret,
    });
    const response = await invoke("token", event);
    expect(response.statusCode).toBe(200);
    expect(response.json.scope).toBe("svc_api_sys_users");
  });

  it("when the secret is wrong, it answers 401 invalid_client with a Basic challenge", async () => {
    const client = await createClient(["svc_api_sys_users"]);
    const response = await tokenRequest("grant_type=client_credentials&scope=svc_api_sys_users", {
      authorization: `Basic ${basicCredentials(client.clientId, "wrong")}`,
    });
    expect(response.statusCode).toBe(401);
    expect(response.headers["www-authenticate"]).toMatch(/^Basic /);
    expect(response.headers["cache-control"]).toBe("no-store");
    expect(response.json).toEqual({ error: "invalid_client", error_description: "client authentication failed" });
  });

  it("when the client is unknown, it answers exactly as for a wrong secret", async () => {
    const response = await tokenRequest("grant_type=client_credentials&scope=svc_api_sys_users", {
      authorization: `Basic ${basicCredentials("no-such-client", "whatever")}`,
    });
    expect(response.statusCode).toBe(401);
    expect(response.json).toEqual({ error: "invalid_client", error_description: "client authentication failed" });
  });

  it("when no client authentication is sent, it answers 401 invalid_client", async () => {
    const response = await tokenRequest("grant_type=client_credentials&scope=svc_api_sys_users");
    expect(response.statusCode).toBe(401);
    expect(response.json.error).toBe("invalid_client");
  });

  it("when both Basic and form credentials are sent, it answers 400 invalid_request", async () => {
    const client = await createClient(["svc_api_sys_users"]);
    const response = await tokenRequest(
      `grant_type=client_credentials&scope=svc_api_sys_users&client_id=${client.clientId}&client_secret=${client.secret}`,
      { authorization: `Basic ${basicCredentials(client.clientId, client.secret)}` },
    );
    expect(response.statusCode).toBe(400);
    expect(response.json.error).toBe("invalid_request");
  });

  it("when a scope was not granted to the client, it answers 400 invalid_scope naming it", async () => {
    const client = await createClient(["svc_api_sys_users"]);
    const response = await tokenRequest("grant_type=client_credentials&scope=svc_api_sys_users%20svc_groups", {
      authorization: `Basic ${basicCredentials(client.clientId, client.secret)}`,
    });
    expect(response.statusCode).toBe(400);
    expect(response.json).toEqual({
      error: "invalid_scope",
      error_description: "not granted to this client: svc_groups",
    });
  });

  it("when a user permission is asked for, it answers invalid_scope (those need a user)", async () => {
    const client = await createClient();
    const event = await sampleEvent("events/token/invalid-scope.json", {
      clientBasic: basicCredentials(client.clientId, client.secret),
    });
    const response = await invoke("token", event);
    expect(response.statusCode).toBe(400);
    expect(response.json.error).toBe("invalid_scope");
    expect(response.json.error_description).toContain("svc_api_user");
  });

  it("when scope is missing, it answers invalid_scope", async () => {
    const client = await createClient(["svc_api_sys_users"]);
    const response = await tokenRequest("grant_type=client_credentials", {
      authorization: `Basic ${basicCredentials(client.clientId, client.secret)}`,
    });
    expect(response.statusCode).toBe(400);
    expect(response.json.error).toBe("invalid_scope");
  });

  it("when grant_type is missing, it answers invalid_request", async () => {
    const client = await createClient(["svc_api_sys_users"]);
    const response = await tokenRequest("scope=svc_api_sys_users", {
      authorization: `Basic ${basicCredentials(client.clientId, client.secret)}`,
    });
    expect(response.statusCode).toBe(400);
    expect(response.json).toEqual({ error: "invalid_request", error_description: "grant_type is required" });
  });

  it("when the grant type is unknown, it answers unsupported_grant_type", async () => {
    const client = await createClient(["svc_api_sys_users"]);
    const response = await tokenRequest("grant_type=urn:example:magic&scope=svc_api_sys_users", {
      authorization: `Basic ${basicCredentials(client.clientId, client.secret)}`,
    });
    expect(response.statusCode).toBe(400);
    expect(response.json.error).toBe("unsupported_grant_type");
  });

  // RFC 6749 5.2: %x20-21 / %x23-5B / %x5D-7E only.
  const DESCRIPTION_CHARS = /^[\x20\x21\x23-\x5B\x5D-\x7E]*$/;

  it("when the grant type is odd text, the description neither echoes it nor leaves the RFC 6749 5.2 characters", async () => {
    const client = await createClient(["svc_api_sys_users"]);
    const response = await tokenRequest(`grant_type=${encodeURIComponent('x"\\é<script>')}&scope=svc_api_sys_users`, {
      authorization: `Basic ${basicCredentials(client.clientId, client.secret)}`,
    });
    expect(response.statusCode).toBe(400);
    expect(response.json).toEqual({
      error: "unsupported_grant_type",
      error_description: "this grant_type is not supported",
    });
  });

  it("when the scope holds unknown names, invalid_scope counts them instead of repeating them", async () => {
    const client = await createClient(["svc_api_sys_users"]);
    const scope = encodeURIComponent('svc_groups "quoted\\ é <b>x</b>');
    const response = await tokenRequest(`grant_type=client_credentials&scope=${scope}`, {
      authorization: `Basic ${basicCredentials(client.clientId, client.secret)}`,
    });
    expect(response.statusCode).toBe(400);
    expect(response.json).toEqual({
      error: "invalid_scope",
      error_description: "not granted to this client: svc_groups 3 unknown permissions",
    });
    expect(response.json.error_description).toMatch(DESCRIPTION_CHARS);
  });

  it("when a parameter is repeated, it answers invalid_request (RFC 6749 3.2)", async () => {
    const client = await createClient(["svc_api_sys_users"]);
    const response = await tokenRequest("grant_type=client_credentials&scope=svc_api_sys_users&scope=svc_groups", {
      authorization: `Basic ${basicCredentials(client.clientId, client.secret)}`,
    });
    expect(response.statusCode).toBe(400);
    expect(response.json.error).toBe("invalid_request");
    expect(response.json.error_description).toContain("scope");
  });

  it("when the body is JSON instead of a form, it answers invalid_request", async () => {
    const client = await createClient(["svc_api_sys_users"]);
    const event = await sampleEvent("events/token/client-credentials-basic.json", {
      clientBasic: basicCredentials(client.clientId, client.secret),
    });
    event.headers["content-type"] = "application/json";
    event.body = JSON.stringify({ grant_type: "client_credentials" });
    const response = await invoke("token", event);
    expect(response.statusCode).toBe(400);
    expect(response.json).toEqual({
      error: "invalid_request",
      error_description: "Content-Type must be application/x-www-form-urlencoded",
    });
  });

  it("when the Authorization header is not Basic, it answers invalid_client", async () => {
    const response = await tokenRequest("grant_type=client_credentials&scope=svc_api_sys_users", {
      authorization: "Bearer abc",
    });
    expect(response.statusCode).toBe(401);
    expect(response.json.error).toBe("invalid_client");
  });
});

describe("GET /svc/.well-known/jwks.json", () => {
  it("when asked, it publishes the public signing keys, ES256 and RS256, and no private part", async () => {
    const response = await invoke("token", await sampleEvent("events/token/jwks.json"));
    expect(response.statusCode).toBe(200);
    const keys = response.json.keys as Array<Record<string, unknown>>;
    expect(keys).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kty: "EC", crv: "P-256", alg: "ES256", use: "sig" }),
        expect.objectContaining({ kty: "RSA", alg: "RS256", use: "sig" }),
      ]),
    );
    for (const key of keys) for (const part of ["d", "p", "q", "dp", "dq", "qi"]) expect(key[part]).toBeUndefined();
  });
});
