import { describe, expect, it } from "vitest";
import { services } from "../../lib/container";
import { ClientDefinitionError, registerClient } from "../../lib/domain/clients/admin";
import { buildClient, type ClientDefinition } from "../../lib/domain/clients/client";
import { digestSecret } from "../../lib/domain/credentials/secret-digest";
import { keys } from "../../lib/store/keys";
import { createClient, seedAccount, uniqueId } from "../support/fixtures";
import { signedIn } from "../support/login";
import { useSettings } from "../support/oauth-provider";
import { basicAuthorization, request } from "../support/requests";
import { storedItem } from "../support/stored";
import { svcAdmin } from "../support/svc-admin";
import { startTally } from "../support/tally";

/**
 * The attack run of issue 43 (items 1, 4, 8), replayed: a client holding only
 * svc_api_sys_clients_chg widening its own record, minting a client with permissions it
 * lacks and taking over a stronger client by rotating its secret; a confidential client
 * introspecting another client's tokens; and a vbscript: redirect URI. Each was accepted
 * before its fix.
 */

const tally = startTally(import.meta.filename);

// Client records are read on every request, so a change shows at once.
useSettings({ clients: { cacheSeconds: 0 } });

async function counted<T extends { statusCode: number }>(answer: Promise<T>, bad = true): Promise<T> {
  const result = await answer;
  tally.answered(result.statusCode);
  if (bad) tally.badInput();
  return result;
}

/** client_credentials at the token endpoint, as the application itself asks. */
function clientCredentials(client: { clientId: string; secret: string }, scope: string) {
  return counted(
    request("token", "events/token/client-credentials-basic.json", {
      authorization: basicAuthorization(client.clientId, client.secret),
      body: `grant_type=client_credentials&scope=${scope}`,
      headers: { "content-type": "application/x-www-form-urlencoded" },
    }),
    false,
  );
}

/** A registered client and a real token of it carrying every permission it may obtain. */
async function administrator(scopes: string[], extra: Partial<ClientDefinition> = {}) {
  const client = await createClient(scopes, { grantTypes: ["client_credentials"], ...extra });
  const token = await clientCredentials(client, scopes.join(" "));
  expect(token.statusCode, token.body).toBe(200);
  return { ...client, bearer: `Bearer ${token.json.access_token as string}` };
}

const create = (body: Record<string, unknown>, authorization: string) =>
  counted(request("clients", "events/clients/create.json", { body, authorization }));
const change = (clientId: string, body: Record<string, unknown>, authorization: string) =>
  counted(request("clients", "events/clients/change.json", { params: { clientId }, body, authorization }));
const rotate = (clientId: string, authorization: string) =>
  counted(request("clients", "events/clients/rotate-secret.json", { params: { clientId }, authorization }));
const remove = (clientId: string, authorization: string) =>
  counted(request("clients", "events/clients/delete.json", { params: { clientId }, authorization }));

/** The refusal of a permission the caller's token does not hold: 401, naming what it lacks. */
function expectNotHeld(
  answer: { statusCode: number; json: Record<string, unknown>; headers: object },
  lacks: string[],
) {
  expect(answer.statusCode, JSON.stringify(answer.json)).toBe(401);
  expect(answer.json).toMatchObject({ type: "security_error", error: "bad_access_token", desc: "insufficient_scope" });
  const challenge = (answer.headers as Record<string, string>)["www-authenticate"];
  expect(challenge).toContain('error="insufficient_scope"');
  expect(/scope="([^"]*)"/.exec(challenge)?.[1].split(" ").sort()).toEqual([...lacks].sort());
}

describe("issue 43 item 1: svc_api_sys_clients_chg grants only what its holder holds", () => {
  it("when a client holding only _chg creates one with svc_rights_full_access and svc_api_sys_users_chg, it is refused and nothing is stored", async () => {
    const admin = await administrator(["svc_api_sys_clients_chg"]);
    const clientId = uniqueId("minted-");
    const minted = await create(
      { clientId, scopes: ["svc_rights_full_access", "svc_api_sys_users_chg"], grantTypes: ["client_credentials"] },
      admin.bearer,
    );
    await tally.invariant(async () => {
      expectNotHeld(minted, ["svc_rights_full_access", "svc_api_sys_users_chg", "svc_api_sys_clients_admin"]);
      expect(minted.body).not.toContain("clientSecret");
      expect(await storedItem(keys.client(clientId))).toBeUndefined();
    });
  });

  it("when a client widens its own record, even holding svc_api_sys_clients_admin, it answers 400 own_client and its record stays", async () => {
    const admin = await administrator(["svc_api_sys_clients_chg", "svc_api_sys_clients_admin", "svc_api_sys_users"]);
    const before = await storedItem(keys.client(admin.clientId));
    const attempts = [
      { scopes: ["svc_api_sys_clients_chg", "svc_api_sys_clients_admin", "svc_api_sys_users", "svc_rm_rights"] },
      { grantTypes: ["client_credentials", "password"] },
      { resources: ["https://api.other.example"] },
      { firstParty: true },
      { trustRelayedAddress: true },
    ];
    for (const body of attempts) {
      const answer = await change(admin.clientId, body, admin.bearer);
      await tally.invariant(() => {
        expect(answer.statusCode, JSON.stringify(body)).toBe(400);
        expect(answer.json).toMatchObject({
          type: "process_error",
          error: "own_client",
          params: { clientId: admin.clientId },
        });
      });
    }
    const widened = await clientCredentials(admin, "svc_rm_rights");
    await tally.invariant(async () => {
      expect(await storedItem(keys.client(admin.clientId))).toEqual(before);
      expect(widened.json.error).toBe("invalid_scope");
    });
    // Narrowing itself, or moving its own redirect addresses, is no widening.
    const narrowed = await change(
      admin.clientId,
      { scopes: ["svc_api_sys_clients_chg", "svc_api_sys_clients_admin"], redirectUris: ["https://admin.example/cb"] },
      admin.bearer,
    );
    expect(narrowed.statusCode, narrowed.body).toBe(200);
  });

  it("when a client holding only _chg adds svc_api_sys_users_chg to its own record, it answers 400 own_client and gets no such token", async () => {
    const admin = await administrator(["svc_api_sys_clients_chg"]);
    const before = await storedItem(keys.client(admin.clientId));
    const widened = await change(
      admin.clientId,
      { scopes: ["svc_api_sys_clients_chg", "svc_api_sys_users_chg"] },
      admin.bearer,
    );
    const token = await clientCredentials(admin, "svc_api_sys_users_chg");
    await tally.invariant(async () => {
      expect(widened.statusCode, widened.body).toBe(400);
      expect(widened.json).toMatchObject({ type: "process_error", error: "own_client" });
      expect(await storedItem(keys.client(admin.clientId))).toEqual(before);
      expect(token.json.error).toBe("invalid_scope");
    });
  });

  it("when a client re-creates itself under its own id, it answers 400 own_client", async () => {
    const admin = await administrator(["svc_api_sys_clients_chg"]);
    const again = await create({ clientId: admin.clientId, scopes: [] }, admin.bearer);
    await tally.invariant(() => expect(again.json).toMatchObject({ error: "own_client" }));
  });

  it("when it rotates the secret of, changes or deletes a stronger client, it is refused and the client keeps working", async () => {
    const admin = await administrator(["svc_api_sys_clients_chg"]);
    const strong = await createClient(["svc_api_sys_users_chg"], { grantTypes: ["client_credentials"] });
    const before = await storedItem(keys.client(strong.clientId));
    const answers = [
      await rotate(strong.clientId, admin.bearer),
      await change(strong.clientId, { redirectUris: ["https://evil.example/cb"] }, admin.bearer),
      await remove(strong.clientId, admin.bearer),
    ];
    const stillWorks = await clientCredentials(strong, "svc_api_sys_users_chg");
    await tally.invariant(async () => {
      for (const answer of answers) expectNotHeld(answer, ["svc_api_sys_users_chg"]);
      expect(answers.some((refused) => refused.body.includes("clientSecret"))).toBe(false);
      expect(await storedItem(keys.client(strong.clientId))).toEqual(before);
      expect((await storedItem(keys.client(strong.clientId)))?.secretHash).toBe(digestSecret(strong.secret));
      expect(stillWorks.statusCode, stillWorks.body).toBe(200);
    });
  });

  it("when it holds an administrative permission without svc_api_sys_clients_admin, it cannot grant it; with it, it can", async () => {
    const holder = await administrator(["svc_api_sys_clients_chg", "svc_rights_full_access"]);
    const refused = [
      await create({ scopes: ["svc_rights_full_access"] }, holder.bearer),
      await create({ scopes: ["svc_api_sys_clients_chg"] }, holder.bearer),
      await create({ scopes: [], firstParty: true }, holder.bearer),
      await create({ scopes: [], trustRelayedAddress: true }, holder.bearer),
    ];
    await tally.invariant(() => {
      expectNotHeld(refused[0], ["svc_api_sys_clients_admin"]);
      expectNotHeld(refused[1], ["svc_api_sys_clients_admin"]);
      expectNotHeld(refused[2], ["svc_api_sys_clients_admin"]);
      expectNotHeld(refused[3], ["svc_api_sys_clients_admin"]);
    });
    const root = await administrator([
      "svc_api_sys_clients_chg",
      "svc_api_sys_clients_admin",
      "svc_rights_full_access",
    ]);
    const granted = await create({ scopes: ["svc_rights_full_access"], firstParty: true }, root.bearer);
    await tally.invariant(() => {
      expect(granted.statusCode, granted.body).toBe(201);
      expect(granted.json).toMatchObject({ scopes: ["svc_rights_full_access"], firstParty: true });
    });
  });

  it("when it grants what it holds, and user permissions, the client is created and its token carries them", async () => {
    const admin = await administrator(["svc_api_sys_clients_chg", "svc_api_sys_users"]);
    const created = await create(
      { scopes: ["svc_api_sys_users", "svc_api_user"], grantTypes: ["client_credentials", "password"] },
      admin.bearer,
    );
    expect(created.statusCode, created.body).toBe(201);
    const made = { clientId: created.json.clientId as string, secret: created.json.clientSecret as string };
    const token = await clientCredentials(made, "svc_api_sys_users");
    await tally.invariant(() => expect(token.json.scope).toBe("svc_api_sys_users"));
  });
});

describe("issue 43 item 4: introspection answers about a token only to its client or its audience", () => {
  const PASSWORD = "Introspection-Password-43";

  const introspect = (caller: { clientId: string; secret: string }, token: string) =>
    counted(
      request("token", "events/token/introspect.json", {
        authorization: basicAuthorization(caller.clientId, caller.secret),
        body: new URLSearchParams({ token }).toString(),
      }),
      false,
    );

  it("when another confidential client introspects a user's refresh and access tokens, it learns only active false", async () => {
    const account = await seedAccount({}, PASSWORD);
    const owner = await createClient(["svc_api_user"]);
    const other = await createClient(["svc_api_user"]);
    const tokens = await signedIn(owner, { scope: "svc_api_user", username: account.sub, password: PASSWORD });
    for (const token of [tokens.refresh_token, tokens.access_token]) {
      const stranger = await introspect(other, token);
      const own = await introspect(owner, token);
      await tally.invariant(() => {
        expect(stranger.statusCode).toBe(200);
        expect(stranger.json).toEqual({ active: false });
        expect(stranger.body).not.toContain(account.sub);
        expect(own.json).toMatchObject({ active: true, sub: account.sub, client_id: owner.clientId });
      });
    }
  });

  it("when a client registered for the token's audience introspects it, it is the resource server and learns the claims", async () => {
    const resource = `https://api-${uniqueId()}.example`;
    const owner = await createClient(["svc_api_sys_users"], { resources: [resource] });
    const server = await createClient([], { resources: [resource] });
    const elsewhere = await createClient([], { resources: ["https://api.elsewhere.example"] });
    const { token } = await services().accessTokens.issue({
      sub: owner.clientId,
      clientId: owner.clientId,
      scopes: ["svc_api_sys_users"],
      ttlSeconds: 300,
      audience: resource,
    });
    const byServer = await introspect(server, token);
    const byElsewhere = await introspect(elsewhere, token);
    // The management API's own audience is no resource URI: its tokens are their client's alone.
    const { token: managementToken } = await services().accessTokens.issue({
      sub: owner.clientId,
      clientId: owner.clientId,
      scopes: ["svc_api_sys_users"],
      ttlSeconds: 300,
    });
    const managementByServer = await introspect(server, managementToken);
    await tally.invariant(() => {
      expect(byServer.json).toMatchObject({ active: true, aud: resource, client_id: owner.clientId });
      expect(byElsewhere.json).toEqual({ active: false });
      expect(managementByServer.json).toEqual({ active: false });
    });
  });
});

describe("issue 43 item 8: redirect URIs by an allow-list of schemes", () => {
  const REFUSED = [
    "vbscript:msgbox(1)",
    "javascript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "file:///etc/passwd",
    "ftp://files.example/cb",
    "http://app.example/cb",
    "http://127.0.0.1.evil.example/cb",
    "myapp:/cb",
    "blob:https://app.example/1",
  ];
  const ACCEPTED = [
    "https://app.example/cb",
    "http://127.0.0.1:8400/cb",
    "http://[::1]/cb",
    "http://localhost:3000/cb",
    "com.example.app:/oauth2redirect",
  ];

  it("when the admin API is sent a refused scheme as redirect or post-logout URI, it answers 400 naming the field and stores nothing", async () => {
    const admin = await administrator(["svc_api_sys_clients_chg"]);
    for (const uri of REFUSED) {
      for (const field of ["redirectUris", "postLogoutRedirectUris"]) {
        const clientId = uniqueId("scheme-");
        const answer = await create({ clientId, scopes: [], [field]: [uri] }, admin.bearer);
        await tally.invariant(async () => {
          expect(answer.statusCode, `${field} ${uri}`).toBe(400);
          expect(answer.json).toMatchObject({ error: "wrong_values", errors: [{ pos: field }] });
          expect(await storedItem(keys.client(clientId))).toBeUndefined();
        });
      }
    }
    const existing = await create({ scopes: [] }, admin.bearer);
    const changed = await change(
      existing.json.clientId as string,
      { redirectUris: ["vbscript:msgbox(1)"] },
      admin.bearer,
    );
    await tally.invariant(() => expect(changed.statusCode).toBe(400));
    const allowed = await create(
      { scopes: [], redirectUris: ACCEPTED, postLogoutRedirectUris: ACCEPTED },
      admin.bearer,
    );
    await tally.invariant(() => {
      expect(allowed.statusCode, allowed.body).toBe(201);
      expect(allowed.json.redirectUris).toEqual(ACCEPTED);
    });
  });

  it("when svc-admin or the start-up registration is given vbscript:, it refuses the client", async () => {
    const id = uniqueId("cli-");
    const run = await svcAdmin(
      "clients",
      "create",
      "--id",
      id,
      "--scopes",
      "svc_api_user",
      "--redirect-uris",
      "vbscript:msgbox(1)",
    );
    tally.answered(run.code === 0 ? 200 : 400);
    tally.badInput();
    // npm start registers its clients (bootstrap, samples) through registerClient, as svc-admin does.
    const definition = { clientId: uniqueId("boot-"), scopes: [], postLogoutRedirectUris: ["vbscript:msgbox(1)"] };
    await tally.invariant(async () => {
      expect(run.code).toBe(1);
      expect(run.stderr).toContain("redirect URI must use https");
      expect(await services().clients.get(id)).toBeUndefined();
      await expect(registerClient(services().clients, definition, true)).rejects.toThrow(ClientDefinitionError);
      expect(await services().clients.get(definition.clientId)).toBeUndefined();
    });
  });

  it("when a client stored before the allow-list holds vbscript:, the authorization and logout endpoints never send the browser there", async () => {
    const uri = "vbscript:msgbox(1)";
    // Written straight to the table, as a record from before the fix would be.
    const { record, secrets } = buildClient(
      { clientId: uniqueId("legacy-"), scopes: ["svc_api_user"], redirectUris: [uri], postLogoutRedirectUris: [uri] },
      Math.floor(Date.now() / 1000),
    );
    await services().clients.save(record, secrets, false);
    const authorize = await counted(
      request("hosted", "events/hosted/authorize.json", {
        query: {
          response_type: "code",
          client_id: record.clientId,
          redirect_uri: uri,
          scope: "openid",
          state: "s",
          code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
          code_challenge_method: "S256",
        },
      }),
    );
    const logout = await counted(
      request("hosted", "events/hosted/logout.json", {
        query: { client_id: record.clientId, post_logout_redirect_uri: uri, state: "bye" },
      }),
    );
    await tally.invariant(() => {
      for (const answer of [authorize, logout]) {
        expect(answer.statusCode).toBe(400);
        expect(answer.headers.location).toBeUndefined();
        expect(answer.body).not.toContain("vbscript");
      }
    });
  });
});
