import { describe, expect, it } from "vitest";
import { services } from "../../lib/container";
import { digestSecret } from "../../lib/domain/credentials/secret-digest";
import { ensureBootstrapClient } from "../../lib/local/bootstrap";
import { keys } from "../../lib/store/keys";
import { seedAccount, systemBearer, uniqueId, userBearer } from "../support/fixtures";
import { useSettings } from "../support/oauth-provider";
import { basicAuthorization, request } from "../support/requests";
import { spentBy } from "../support/round-trips";
import { storedClientEvents, storedItem } from "../support/stored";
import { expectNothingStored, tableSnapshot } from "../support/table-snapshot";

// With clients.cacheSeconds 0 the token endpoint reads the client on every request, so a
// rotation or deletion shows at once. By default warm functions see it within
// clients.cacheSeconds (test/lib/domain/clients/credential-cache.test.ts).
useSettings({ clients: { cacheSeconds: 0 } });

// A caller grants only what it holds (test/reliability/client-admin-attacks.test.ts): this
// administrator holds every permission the clients of this file are given, and the trust flags.
const CHANGE = [
  "svc_api_sys_clients_chg",
  "svc_api_sys_clients_admin",
  "svc_api_sys_users",
  "svc_api_sys_users_chg",
  "svc_groups",
];
const READ = ["svc_api_sys_clients"];

const CLIENT_FIELDS = [
  "clientId",
  "scopes",
  "grantTypes",
  "redirectUris",
  "postLogoutRedirectUris",
  "resources",
  "exchangeFrom",
  "public",
  "firstParty",
  "idTokenSignedResponseAlg",
  "dpopBoundAccessTokens",
  "trustRelayedAddress",
  "requirePushedAuthorizationRequests",
  "hasRestPassword",
  "bootstrap",
  "createdAt",
  "updatedAt",
];

async function create(body: Record<string, unknown>, authorization?: string) {
  return request("clients", "events/clients/create.json", {
    body,
    authorization: authorization ?? (await systemBearer(CHANGE)),
  });
}

async function newClient(extra: Record<string, unknown> = {}) {
  const clientId = uniqueId("app-");
  const created = await create({ clientId, scopes: ["svc_api_sys_users"], ...extra });
  expect(created.statusCode, created.body).toBe(201);
  return { clientId, secret: created.json.clientSecret as string, created };
}

async function getClient(clientId: string, authorization?: string) {
  return request("clients", "events/clients/get.json", {
    params: { clientId },
    authorization: authorization ?? (await systemBearer(READ)),
  });
}

async function listClients(query: Record<string, string> = {}) {
  return request("clients", "events/clients/list.json", { query, authorization: await systemBearer(READ) });
}

async function change(clientId: string, body: unknown, authorization?: string) {
  return request("clients", "events/clients/change.json", {
    params: { clientId },
    body,
    authorization: authorization ?? (await systemBearer(CHANGE)),
  });
}

async function rotate(clientId: string, authorization?: string) {
  return request("clients", "events/clients/rotate-secret.json", {
    params: { clientId },
    authorization: authorization ?? (await systemBearer(CHANGE)),
  });
}

async function remove(clientId: string, authorization?: string) {
  return request("clients", "events/clients/delete.json", {
    params: { clientId },
    authorization: authorization ?? (await systemBearer(CHANGE)),
  });
}

/** The answer's status and the DynamoDB reads and writes it cost. */
async function costOf(work: () => Promise<{ statusCode: number }>) {
  const { result, reads, writes } = await spentBy(work);
  return { status: result.statusCode, reads, writes };
}

/** client_credentials at the token endpoint, as the application itself would ask. */
function clientCredentials(clientId: string, secret: string, scope = "svc_api_sys_users") {
  return request("token", "events/token/client-credentials-basic.json", {
    authorization: basicAuthorization(clientId, secret),
    body: `grant_type=client_credentials&scope=${scope}`,
    headers: { "content-type": "application/x-www-form-urlencoded" },
  });
}

/** The authorization endpoint for this client and redirect URI (the sample's other parameters). */
function authorize(clientId: string, redirectUri: string) {
  return request("hosted", "events/hosted/authorize.json", {
    query: {
      response_type: "code",
      client_id: clientId,
      redirect_uri: redirectUri,
      scope: "openid",
      state: "af0ifjsldkj",
      code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
      code_challenge_method: "S256",
      ui_locales: "en",
    },
  });
}

describe("client sample events", () => {
  it("when run in order, a client is created, listed, read, changed, given a new secret and deleted", async () => {
    const created = await request("clients", "events/clients/create.json");
    expect(created.statusCode).toBe(201);
    expect(created.headers["cache-control"]).toBe("no-store");
    const billing = {
      clientId: "billing-portal",
      scopes: ["svc_api_user", "svc_api_sys_users"],
      grantTypes: ["authorization_code", "refresh_token", "client_credentials"],
      redirectUris: ["https://billing.example/cb"],
      postLogoutRedirectUris: ["https://billing.example/"],
      resources: ["https://api.billing.example"],
      exchangeFrom: [],
      public: false,
      firstParty: false,
      idTokenSignedResponseAlg: "RS256",
      dpopBoundAccessTokens: false,
      trustRelayedAddress: false,
      requirePushedAuthorizationRequests: false,
      hasRestPassword: false,
      bootstrap: false,
      createdAt: expect.any(Number),
      updatedAt: expect.any(Number),
    };
    expect(created.json).toEqual({ ...billing, clientSecret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
    expect((await request("clients", "events/clients/list.json")).json.clients).toContainEqual(billing);
    expect((await request("clients", "events/clients/get.json")).json).toEqual(billing);
    const changed = await request("clients", "events/clients/change.json");
    expect(changed.json).toEqual({
      ...billing,
      redirectUris: ["https://billing.example/cb", "https://billing.example/cb2"],
      firstParty: true,
    });
    const rotated = await request("clients", "events/clients/rotate-secret.json");
    expect(rotated.json).toEqual({ clientId: "billing-portal", clientSecret: expect.any(String) });
    expect(rotated.json.clientSecret).not.toBe(created.json.clientSecret);
    expect((await request("clients", "events/clients/delete.json")).statusCode).toBe(204);
    expect((await request("clients", "events/clients/get.json")).statusCode).toBe(404);
  });
});

describe("POST /svc/admin/api/v3/clients", () => {
  it("when a confidential client is created, its secret is answered once and works at the token endpoint", async () => {
    const { clientId, secret, created } = await newClient();
    expect(Object.keys(created.json).sort()).toEqual([...CLIENT_FIELDS, "clientSecret"].sort());
    const stored = await storedItem(keys.client(clientId));
    expect(stored).toMatchObject({ entity: "client", schemaVersion: 1, secretHash: digestSecret(secret) });
    const token = await clientCredentials(clientId, secret);
    expect(token.statusCode, token.body).toBe(200);
    expect(token.json.scope).toBe("svc_api_sys_users");
    // Permissions it was not given are refused, as for any client.
    expect((await clientCredentials(clientId, secret, "svc_api_sys_clients_chg")).json.error).toBe("invalid_scope");
  });

  it("when no id is sent, one is generated; two calls make two clients", async () => {
    const first = await create({ scopes: [] });
    const second = await create({ scopes: [] });
    expect(first.statusCode).toBe(201);
    expect(first.json.clientId).toMatch(/^[0-9a-f]{20}$/);
    expect(second.json.clientId).not.toBe(first.json.clientId);
  });

  it("when the client is public, it gets no secret and the PKCE grants; its secret cannot be rotated", async () => {
    const clientId = uniqueId("spa-");
    const created = await create({
      clientId,
      scopes: ["svc_api_user"],
      public: true,
      redirectUris: ["https://spa.example/cb"],
    });
    expect(created.statusCode).toBe(201);
    expect(created.json).not.toHaveProperty("clientSecret");
    expect(created.json).toMatchObject({ public: true, grantTypes: ["authorization_code", "refresh_token"] });
    expect((await storedItem(keys.client(clientId)))?.secretHash).toBe("none");
    const rotated = await rotate(clientId);
    expect(rotated.statusCode).toBe(400);
    expect(rotated.json).toMatchObject({ type: "process_error", error: "public_client", params: { clientId } });
  });

  it("when the id is taken, it answers 409 client_exists and the first client keeps its secret", async () => {
    const { clientId, secret } = await newClient();
    const again = await create({ clientId, scopes: ["svc_api_sys_users_chg"] });
    expect(again.statusCode).toBe(409);
    expect(again.json).toEqual({
      type: "process_error",
      error: "client_exists",
      desc: "a client with this id exists",
      params: { clientId },
    });
    expect((await clientCredentials(clientId, secret)).statusCode).toBe(200);
  });

  it("when the definition is bad, it answers 400 wrong_values naming each field and stores nothing", async () => {
    const before = await tableSnapshot();
    const bad = await create({
      clientId: uniqueId("bad-"),
      scopes: ["svc_api_sys_users", "no_such_permission"],
      redirectUris: ["http://evil.example/cb", "https://ok.example/cb#frag"],
      public: true,
      grantTypes: ["client_credentials"],
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json).toMatchObject({ type: "input_error", error: "wrong_values" });
    const errors = bad.json.errors as Array<{ pos: string; error: string; desc: string }>;
    expect(errors.map((e) => e.pos)).toEqual(["scopes", "redirectUris", "redirectUris", "grantTypes"]);
    expect(errors[0]).toEqual({
      type: "input_error",
      error: "wrong_value",
      pos: "scopes",
      desc: "unknown permissions: no_such_permission",
    });
    expectNothingStored(before, await tableSnapshot(), "bad definition");
  });

  it("when a confidential client trusts the address it relays, that is stored and shown; a public one is refused", async () => {
    const { clientId, created } = await newClient({ trustRelayedAddress: true });
    expect(created.json.trustRelayedAddress).toBe(true);
    expect((await storedItem(keys.client(clientId)))?.trustRelayedAddress).toBe(true);
    expect((await getClient(clientId)).json.trustRelayedAddress).toBe(true);
    expect((await services().clients.getWithSecrets(clientId))?.trustRelayedAddress).toBe(true);
    const before = await tableSnapshot();
    const spaId = uniqueId("spa-");
    const refused = await create({
      clientId: spaId,
      scopes: ["svc_api_user"],
      public: true,
      redirectUris: ["https://spa.example/cb"],
      trustRelayedAddress: true,
    });
    expect(refused.statusCode, refused.body).toBe(400);
    expect(refused.json).toMatchObject({
      type: "input_error",
      error: "wrong_values",
      errors: [{ error: "wrong_value", pos: "trustRelayedAddress" }],
    });
    expect(await storedItem(keys.client(spaId))).toBeUndefined();
    expectNothingStored(before, await tableSnapshot(), "public client trusting its relayed address");
  });

  it("when the body breaks the schema or offers a secret, it answers 400 and stores nothing", async () => {
    const before = await tableSnapshot();
    const cases: Array<[unknown, string]> = [
      [{ clientId: uniqueId("c-"), scopes: [], secret: "chosen-by-caller-0123456789abcdef" }, "secret"],
      [{ clientId: "-leading-dash", scopes: [] }, "clientId"],
      [{ clientId: uniqueId("c-") }, "scopes"],
      [{ scopes: [], grantTypes: ["implicit"] }, "grantTypes.0"],
      [{ scopes: "svc_api_sys_users" }, "scopes"],
      [{ scopes: [], redirectUris: ["x".repeat(3000)] }, "redirectUris.0"],
    ];
    for (const [body, pos] of cases) {
      const answer = await create(body as Record<string, unknown>);
      expect(answer.statusCode, JSON.stringify(body)).toBe(400);
      expect(answer.json).toMatchObject({ type: "input_error", error: "wrong_values" });
      expect((answer.json.errors as Array<{ pos: string }>).map((e) => e.pos)).toContain(pos);
      expect(answer.body).not.toContain("chosen-by-caller");
    }
    expectNothingStored(before, await tableSnapshot(), "schema");
  });

  it("when created, it costs one write: the client and its security event in one transaction", async () => {
    const clientId = uniqueId("app-");
    const authorization = await systemBearer(CHANGE, "admin-app");
    const { result, reads, writes } = await spentBy(() => create({ clientId, scopes: [] }, authorization));
    expect(result.statusCode).toBe(201);
    expect({ reads, writes }).toEqual({ reads: 0, writes: 1 });
    const events = await storedClientEvents(clientId);
    expect(events).toEqual([
      expect.objectContaining({
        entity: "security-event",
        sbj: clientId,
        sbjType: "its",
        type: "clients.create",
        cId: "admin-app",
        ip: "203.0.113.10",
        ua: "curl/8.5.0",
        result: "ok",
        prms: { route: "clients.create" },
      }),
    ]);
    expect(JSON.stringify(events)).not.toContain(result.json.clientSecret as string);
  });
});

describe("GET /svc/admin/api/v3/clients and /{clientId}", () => {
  it("when read or listed, a client shows neither its secret nor its digest", async () => {
    const { clientId, secret } = await newClient({ firstParty: true });
    const read = await getClient(clientId);
    expect(read.statusCode).toBe(200);
    expect(Object.keys(read.json).sort()).toEqual([...CLIENT_FIELDS].sort());
    expect(read.json).toMatchObject({ clientId, scopes: ["svc_api_sys_users"], firstParty: true });
    const listed = await listClients();
    expect((listed.json.clients as Array<{ clientId: string }>).find((c) => c.clientId === clientId)).toEqual(
      read.json,
    );
    const digest = digestSecret(secret);
    for (const body of [read.body, listed.body]) {
      expect(body).not.toContain(secret);
      expect(body).not.toContain(digest);
      expect(body).not.toMatch(/secret|hash/i);
    }
  });

  it("when listed a page at a time, next continues in id order until the end", async () => {
    const prefix = uniqueId("page-");
    for (const n of [1, 2, 3]) await create({ clientId: `${prefix}-${n}`, scopes: [] });
    const ids: string[] = [];
    let after: string | undefined = prefix;
    for (let page = 0; page < 50 && after !== undefined; page++) {
      const answer = await listClients({ limit: "2", ...(after && { after }) });
      expect(answer.statusCode).toBe(200);
      const clients = answer.json.clients as Array<{ clientId: string }>;
      expect(clients.length).toBeLessThanOrEqual(2);
      ids.push(...clients.map((c) => c.clientId));
      after = answer.json.next as string | undefined;
      if (after !== undefined) expect(after).toBe(clients.at(-1)?.clientId);
    }
    const ours = ids.filter((id) => id.startsWith(prefix));
    expect(ours).toEqual([`${prefix}-1`, `${prefix}-2`, `${prefix}-3`]);
    expect(ids).toEqual([...ids].sort());
  });

  it("when read, it costs one read; a page is one Query", async () => {
    const { clientId } = await newClient();
    const authorization = await systemBearer(READ);
    expect(await costOf(() => getClient(clientId, authorization))).toEqual({ status: 200, reads: 1, writes: 0 });
    const page = () => request("clients", "events/clients/list.json", { query: { limit: "5" }, authorization });
    expect(await costOf(page)).toEqual({ status: 200, reads: 1, writes: 0 });
  });

  it("when the client is unknown or the query is bad, it answers 404 or 400", async () => {
    const missing = await getClient("no-such-client");
    expect(missing.statusCode).toBe(404);
    expect(missing.json).toEqual({
      type: "process_error",
      error: "unknown_client",
      desc: "no client has this id",
      params: { clientId: "no-such-client" },
    });
    const queries: Record<string, string>[] = [
      { limit: "0" },
      { limit: "101" },
      { limit: "ten" },
      { after: "../x" },
      { page: "2" },
    ];
    for (const query of queries) {
      const answer = await listClients(query);
      expect(answer.statusCode, JSON.stringify(query)).toBe(400);
      expect(answer.json).toMatchObject({ type: "input_error", error: "wrong_values" });
    }
  });
});

describe("POST /svc/admin/api/v3/clients/{clientId}", () => {
  it("when the redirect URIs change, the authorization endpoint accepts the new one and refuses the dropped one", async () => {
    const { clientId } = await newClient({
      grantTypes: ["authorization_code", "refresh_token"],
      redirectUris: ["https://app.example/old"],
    });
    expect((await authorize(clientId, "https://app.example/new")).statusCode).toBe(400);
    expect((await authorize(clientId, "https://app.example/old")).statusCode).toBe(200);
    const changed = await change(clientId, { redirectUris: ["https://app.example/new"] });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json).toMatchObject({
      redirectUris: ["https://app.example/new"],
      grantTypes: ["authorization_code", "refresh_token"],
    });
    expect((await authorize(clientId, "https://app.example/new")).statusCode).toBe(200);
    expect((await authorize(clientId, "https://app.example/old")).statusCode).toBe(400);
  });

  it("when fields are sent, they replace the stored ones, the rest stay; scopes apply to the next token", async () => {
    const { clientId, secret } = await newClient({ resources: ["https://api.example"] });
    const changed = await change(clientId, { scopes: ["svc_api_sys_users", "svc_groups"], firstParty: true });
    expect(changed.statusCode).toBe(200);
    expect(changed.json).toMatchObject({
      scopes: ["svc_api_sys_users", "svc_groups"],
      firstParty: true,
      resources: ["https://api.example"],
    });
    expect(await getClient(clientId).then((r) => r.json)).toEqual(changed.json);
    expect((await clientCredentials(clientId, secret, "svc_groups")).statusCode).toBe(200);
    // The secret is untouched by a change.
    expect((await storedItem(keys.client(clientId)))?.secretHash).toBe(digestSecret(secret));
  });

  it("when trustRelayedAddress is changed, it is stored and shown; a public client asking for it is refused", async () => {
    const { clientId } = await newClient();
    const trusted = await change(clientId, { trustRelayedAddress: true });
    expect(trusted.statusCode, trusted.body).toBe(200);
    expect(trusted.json.trustRelayedAddress).toBe(true);
    expect((await storedItem(keys.client(clientId)))?.trustRelayedAddress).toBe(true);
    expect((await getClient(clientId)).json).toEqual(trusted.json);
    const untrusted = await change(clientId, { trustRelayedAddress: false });
    expect(untrusted.json.trustRelayedAddress).toBe(false);
    expect((await storedItem(keys.client(clientId)))?.trustRelayedAddress).toBe(false);
    const spaId = uniqueId("spa-");
    await create({ clientId: spaId, scopes: [], public: true, redirectUris: ["https://spa.example/cb"] });
    const before = await storedItem(keys.client(spaId));
    const refused = await change(spaId, { trustRelayedAddress: true });
    expect(refused.statusCode, refused.body).toBe(400);
    expect(refused.json).toMatchObject({ error: "wrong_values", errors: [{ pos: "trustRelayedAddress" }] });
    expect(await storedItem(keys.client(spaId))).toEqual(before);
  });

  it("when the scopes carry OpenID Connect scopes, they are taken and not stored: every client may ask for them", async () => {
    const oidcScopes = ["openid", "profile", "email", "address", "phone", "offline_access"];
    const { clientId, created } = await newClient({ scopes: [...oidcScopes, "svc_api_user", "svc_api_sys_users"] });
    expect(created.json.scopes).toEqual(["svc_api_user", "svc_api_sys_users"]);
    expect((await storedItem(keys.client(clientId)))?.scopes).toEqual(["svc_api_user", "svc_api_sys_users"]);
    const changed = await change(clientId, { scopes: ["openid", "email", "svc_api_user"] });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json.scopes).toEqual(["svc_api_user"]);
    expect((await storedItem(keys.client(clientId)))?.scopes).toEqual(["svc_api_user"]);
    const unknown = await change(clientId, { scopes: ["openid", "svc_everything"] });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.body).toContain("unknown permissions: svc_everything");
  });

  it("when the ID token algorithm changes, it is stored and shown; RS256 is the default and only RS256 or ES256 is taken", async () => {
    const { clientId, created } = await newClient();
    expect(created.json.idTokenSignedResponseAlg).toBe("RS256");
    const changed = await change(clientId, { idTokenSignedResponseAlg: "ES256" });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json.idTokenSignedResponseAlg).toBe("ES256");
    expect((await storedItem(keys.client(clientId)))?.idTokenSignedResponseAlg).toBe("ES256");
    const before = await tableSnapshot();
    for (const alg of ["HS256", "none", "PS256"]) {
      const refused = await change(clientId, { idTokenSignedResponseAlg: alg });
      expect(refused.statusCode).toBe(400);
      expect(refused.body).toContain("idTokenSignedResponseAlg");
      const notCreated = await create({ scopes: ["svc_api_sys_users"], idTokenSignedResponseAlg: alg });
      expect(notCreated.statusCode).toBe(400);
    }
    expectNothingStored(before, await tableSnapshot(), "bad ID token algorithms");
  });

  it("when the change would make a bad client, it answers 400 and the client stays as it was", async () => {
    const clientId = uniqueId("spa-");
    await create({ clientId, scopes: [], public: true, redirectUris: ["https://spa.example/cb"] });
    const before = await storedItem(keys.client(clientId));
    for (const [body, pos] of [
      [{ grantTypes: ["authorization_code", "client_credentials"] }, "grantTypes"],
      [{ redirectUris: [] }, "redirectUris"],
      [{ scopes: ["svc_api_user", "nope"] }, "scopes"],
      [{ public: false }, "public"],
      [{}, "body"],
    ] as const) {
      const answer = await change(clientId, body);
      expect(answer.statusCode, JSON.stringify(body)).toBe(400);
      expect((answer.json.errors as Array<{ pos: string }>).map((e) => e.pos)).toContain(pos);
    }
    expect(await storedItem(keys.client(clientId))).toEqual(before);
  });

  it("when changed, it costs one read and one write, and records which fields changed", async () => {
    const { clientId } = await newClient();
    const authorization = await systemBearer(CHANGE, "admin-app");
    const changing = () => change(clientId, { firstParty: true, resources: [] }, authorization);
    expect(await costOf(changing)).toEqual({ status: 200, reads: 1, writes: 1 });
    const events = await storedClientEvents(clientId);
    expect(events.at(-1)).toMatchObject({
      type: "clients.change",
      cId: "admin-app",
      prms: { route: "clients.change", fields: ["firstParty", "resources"] },
    });
  });

  it("when another change overtook the read, the guarded write is refused and nothing is written", async () => {
    const { clientId } = await newClient();
    const stale = await services().clients.getForChange(clientId);
    expect((await change(clientId, { firstParty: true })).statusCode).toBe(200);
    const written = await services().clients.update(
      clientId,
      { redirectUris: ["https://late.example/cb"], updatedAt: 1 },
      { revision: stale?.revision },
      [],
    );
    expect(written).toBe(false);
    expect(await getClient(clientId).then((r) => r.json)).toMatchObject({ redirectUris: [], firstParty: true });
  });

  it("when the client is unknown, it answers 404 and creates nothing", async () => {
    const answer = await change("no-such-client", { firstParty: true });
    expect(answer.statusCode).toBe(404);
    expect(answer.json.error).toBe("unknown_client");
    expect(await storedItem(keys.client("no-such-client"))).toBeUndefined();
  });
});

describe("POST /svc/admin/api/v3/clients/{clientId}/secret/rotate", () => {
  it("when rotated, the new secret is answered once and works; the old one is refused", async () => {
    const { clientId, secret } = await newClient();
    const rotated = await rotate(clientId);
    expect(rotated.statusCode).toBe(200);
    expect(rotated.headers["cache-control"]).toBe("no-store");
    const fresh = rotated.json.clientSecret as string;
    expect(fresh).not.toBe(secret);
    const old = await clientCredentials(clientId, secret);
    expect(old.statusCode).toBe(401);
    expect(old.json.error).toBe("invalid_client");
    expect((await clientCredentials(clientId, fresh)).statusCode).toBe(200);
    expect((await getClient(clientId)).body).not.toContain(fresh);
    const events = await storedClientEvents(clientId);
    expect(events.at(-1)).toMatchObject({ type: "clients.rotate-secret", prms: { route: "clients.rotate-secret" } });
    expect(JSON.stringify(events)).not.toContain(fresh);
    expect(JSON.stringify(events)).not.toContain(digestSecret(fresh));
  });

  it("when warm functions keep client records (clients.cacheSeconds), the old secret works until the record expires", async () => {
    const { clientId, secret } = await newClient();
    useSettings({ clients: { cacheSeconds: 10 } });
    try {
      expect((await clientCredentials(clientId, secret)).statusCode).toBe(200);
      expect((await rotate(clientId)).statusCode).toBe(200);
      // The documented delay (interface §4.17): this container still holds the old digest.
      expect((await clientCredentials(clientId, secret)).statusCode).toBe(200);
    } finally {
      useSettings({ clients: { cacheSeconds: 0 } });
    }
    expect((await clientCredentials(clientId, secret)).statusCode).toBe(401);
  });

  it("when rotated, it costs one read (what the client holds) and one write guarded by it; an unknown client is 404", async () => {
    const { clientId } = await newClient();
    const authorization = await systemBearer(CHANGE);
    expect(await costOf(() => rotate(clientId, authorization))).toEqual({ status: 200, reads: 1, writes: 1 });
    const missing = await rotate("no-such-client");
    expect(missing.statusCode).toBe(404);
    expect(await storedItem(keys.client("no-such-client"))).toBeUndefined();
  });
});

describe("DELETE /svc/admin/api/v3/clients/{clientId}", () => {
  it("when deleted, client_credentials is refused, the record is gone and the deletion is recorded", async () => {
    const { clientId, secret } = await newClient();
    expect((await clientCredentials(clientId, secret)).statusCode).toBe(200);
    const authorization = await systemBearer(CHANGE);
    // One read: the caller must hold what the client holds; the write is guarded by that read.
    expect(await costOf(() => remove(clientId, authorization))).toEqual({ status: 204, reads: 1, writes: 1 });
    const refused = await clientCredentials(clientId, secret);
    expect(refused.statusCode).toBe(401);
    expect(refused.json.error).toBe("invalid_client");
    expect(await storedItem(keys.client(clientId))).toBeUndefined();
    expect((await storedClientEvents(clientId)).map((e) => e.type)).toEqual(["clients.create", "clients.delete"]);
    const again = await remove(clientId);
    expect(again.statusCode).toBe(404);
    expect(again.json.error).toBe("unknown_client");
  });
});

describe("the bootstrap client", () => {
  it("when asked to delete, change or rotate it, the API answers 400 bootstrap_client and leaves it as it is", async () => {
    const bootstrap = await ensureBootstrapClient();
    const before = await storedItem(keys.client(bootstrap.clientId));
    expect((await getClient(bootstrap.clientId)).json).toMatchObject({ bootstrap: true });
    for (const answer of [
      await remove(bootstrap.clientId),
      await change(bootstrap.clientId, { scopes: [] }),
      await rotate(bootstrap.clientId),
    ]) {
      expect(answer.statusCode).toBe(400);
      expect(answer.json).toMatchObject({
        type: "process_error",
        error: "bootstrap_client",
        params: { clientId: bootstrap.clientId },
      });
    }
    expect(await storedItem(keys.client(bootstrap.clientId))).toEqual(before);
    expect((await clientCredentials(bootstrap.clientId, bootstrap.secret)).statusCode).toBe(200);
  });
});

describe("who may call", () => {
  it("when the token is a user's, or lacks the permission, every clients call answers 401 bad_access_token", async () => {
    const { clientId } = await newClient();
    const account = await seedAccount();
    const user = await userBearer(account.sub, ["svc_api_user", "svc_api_usec_chg"]);
    const other = await systemBearer(["svc_api_sys_users", "svc_api_sys_users_chg"]);
    const readOnly = await systemBearer(READ);
    const calls = [
      (auth: string) => create({ scopes: [] }, auth),
      (auth: string) => change(clientId, { firstParty: true }, auth),
      (auth: string) => rotate(clientId, auth),
      (auth: string) => remove(clientId, auth),
    ];
    const reads = [
      (auth: string) => getClient(clientId, auth),
      (auth: string) => request("clients", "events/clients/list.json", { authorization: auth }),
    ];
    const refused = [
      ...(await Promise.all([...calls, ...reads].flatMap((call) => [call(user), call(other)]))),
      ...(await Promise.all(calls.map((call) => call(readOnly)))),
      await getClient(clientId, await systemBearer(CHANGE)),
    ];
    const last = refused.pop();
    for (const answer of refused) {
      expect(answer.statusCode).toBe(401);
      expect(answer.json).toMatchObject({ type: "security_error", error: "bad_access_token" });
    }
    // The change permission does not include reading: the pair is read / change, as for accounts.
    expect(last?.statusCode).toBe(401);
    expect(await getClient(clientId).then((r) => r.json)).toMatchObject({ firstParty: false });
  });

  it("when there is no token, it answers 401", async () => {
    const answer = await request("clients", "events/clients/list.json", { authorization: null });
    expect(answer.statusCode).toBe(401);
  });
});
