import { decodeJwt } from "jose";
import * as oidc from "openid-client";
import { describe, expect, it } from "vitest";
import { services } from "../../lib/container";
import { resourceId } from "../../lib/domain/resources/resource";
import { keys } from "../../lib/store/keys";
import { createClient, seedAccount, systemBearer, uniqueId } from "../support/fixtures";
import { PASSWORD, useHostedSignIn } from "../support/hosted-sign-in";
import { storedClientEvents, storedItem } from "../support/stored";
import { svcAdmin } from "../support/svc-admin";

/**
 * Protected resources as first-class objects (RFC 8707, RFC 9728): an operator registers a
 * resource once, and the clients it admits get tokens for it with its own scopes.
 */

const { issuer, rp, relyingParty, startAuthorization, fillSignInForm, backAtClient, signInAndRedeem } =
  await useHostedSignIn();
const base = () => issuer.replace(/\/svc$/, "");
const resourcesUrl = () => `${issuer}/admin/api/v3/resources`;

/** A fresh resource URI on a loopback host, so nothing but this test names it. */
const newUri = () => `http://127.0.0.1:9/${uniqueId("mcp-")}`;

async function api(method: string, path: string, body?: unknown, scopes = ["svc_api_sys_clients_chg"]) {
  const response = await fetch(path, {
    method,
    headers: {
      authorization: await systemBearer([...scopes, "svc_api_sys_clients"]),
      ...(body !== undefined && { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

const NOTES_SCOPES = [
  { name: "notes:read", description: "Read your notes" },
  { name: "notes:write", description: "Add notes" },
];

async function registerResource(consent: "user" | "operator", uri = newUri()) {
  const created = await api("POST", resourcesUrl(), { uri, name: "Notes", scopes: NOTES_SCOPES, consent });
  expect(created.status).toBe(201);
  return uri;
}

describe("the resources of the admin API", () => {
  it("registers, lists, reads, replaces and deletes a resource, each change a security event of the caller", async () => {
    const uri = newUri();
    const created = await api("POST", resourcesUrl(), { uri, name: "Notes", scopes: NOTES_SCOPES, consent: "user" });
    expect(created).toMatchObject({
      status: 201,
      body: { id: resourceId(uri), uri, name: "Notes", scopes: NOTES_SCOPES, consent: "user" },
    });
    expect(await storedItem(keys.resource(uri))).toMatchObject({
      entity: "resource",
      schemaVersion: 1,
      consent: "user",
    });

    const listed = await api("GET", resourcesUrl());
    expect(listed.body.resources).toContainEqual(expect.objectContaining({ uri, id: resourceId(uri) }));
    expect((await api("GET", `${resourcesUrl()}/${resourceId(uri)}`)).body).toMatchObject({ uri, name: "Notes" });

    const replaced = await api("PUT", `${resourcesUrl()}/${resourceId(uri)}`, {
      name: "Notes v2",
      scopes: [{ name: "notes:read" }],
      consent: "operator",
    });
    expect(replaced).toMatchObject({ status: 200, body: { uri, name: "Notes v2", consent: "operator" } });
    expect(replaced.body.scopes).toEqual([{ name: "notes:read" }]);
    expect(replaced.body.createdAt).toBe(created.body.createdAt);

    expect((await api("DELETE", `${resourcesUrl()}/${resourceId(uri)}`)).status).toBe(204);
    expect(await storedItem(keys.resource(uri))).toBeUndefined();
    expect(await api("GET", `${resourcesUrl()}/${resourceId(uri)}`)).toMatchObject({
      status: 404,
      body: { error: "unknown_resource" },
    });
    expect((await api("DELETE", `${resourcesUrl()}/${resourceId(uri)}`)).status).toBe(404);

    const mine = (await storedClientEvents("test-client")).filter(
      (e) => (e.prms as { resource?: string })?.resource === uri,
    );
    expect(mine.map((e) => e.type).sort()).toEqual(["resources.create", "resources.delete", "resources.replace"]);
  });

  it("refuses a second resource of the same URI, and a replace of one that is gone, changing nothing", async () => {
    const uri = await registerResource("user");
    const again = await api("POST", resourcesUrl(), { uri, name: "Other", scopes: [], consent: "operator" });
    expect(again).toMatchObject({ status: 409, body: { error: "resource_exists" } });
    expect(await storedItem(keys.resource(uri))).toMatchObject({ name: "Notes", consent: "user" });
    const gone = newUri();
    const replaced = await api("PUT", `${resourcesUrl()}/${resourceId(gone)}`, {
      name: "x",
      scopes: [],
      consent: "user",
    });
    expect(replaced).toMatchObject({ status: 404, body: { error: "unknown_resource" } });
    expect(await storedItem(keys.resource(gone))).toBeUndefined();
  });

  it.each([
    ["an http URL to another host", { uri: "http://notes.example/mcp" }, "uri"],
    ["a fragment", { uri: "https://notes.example/mcp#x" }, "uri"],
    ["the management API's own identifier", { uri: "ISSUER" }, "uri"],
    ["an OpenID Connect scope", { scopes: [{ name: "openid" }] }, "scopes"],
    ["a permission of ours", { scopes: [{ name: "svc_api_user" }] }, "scopes"],
    ["a scope named twice", { scopes: [{ name: "a" }, { name: "a" }] }, "scopes"],
    ["a scope with a #", { scopes: [{ name: "a#b" }] }, "scopes"],
  ])("refuses %s with wrong_values naming the field, storing nothing", async (_, change, field) => {
    const body = { uri: newUri(), name: "Bad", scopes: [{ name: "ok" }], consent: "user", ...change };
    if (body.uri === "ISSUER") body.uri = issuer;
    const refused = await api("POST", resourcesUrl(), body);
    expect(refused).toMatchObject({ status: 400, body: { error: "wrong_values" } });
    expect(refused.body.errors.map((e: { pos: string }) => e.pos)).toContain(field);
    expect(await storedItem(keys.resource(body.uri))).toBeUndefined();
  });

  it("changes need svc_api_sys_clients_chg: a reading token is refused and nothing is stored", async () => {
    const uri = newUri();
    const response = await fetch(resourcesUrl(), {
      method: "POST",
      headers: { authorization: await systemBearer(["svc_api_sys_clients"]), "content-type": "application/json" },
      body: JSON.stringify({ uri, name: "Notes", scopes: [], consent: "user" }),
    });
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toContain('scope="svc_api_sys_clients_chg"');
    expect(await storedItem(keys.resource(uri))).toBeUndefined();
  });

  it("svc-admin registers, lists and deletes a resource", async () => {
    const uri = newUri();
    const created = await svcAdmin(
      ...["resources", "create", "--uri", uri, "--name", "Reports", "--scopes", "r:read r:write", "--consent", "user"],
    );
    expect(created.code).toBe(0);
    expect(created.stdout).toContain(resourceId(uri));
    expect(await services().resources.get(uri)).toMatchObject({
      name: "Reports",
      consent: "user",
      scopes: [{ name: "r:read" }, { name: "r:write" }],
    });
    const listed = await svcAdmin(...["resources", "list", "--json"]);
    expect(
      listed.stdout
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l).uri),
    ).toContain(uri);
    const bad = await svcAdmin(...["resources", "create", "--uri", newUri(), "--name", "X", "--scopes", "openid"]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain("scopes");
    expect((await svcAdmin(...["resources", "delete", "--uri", uri])).code).toBe(0);
    expect(await services().resources.get(uri)).toBeUndefined();
  });
});

describe("tokens for a registered resource", () => {
  it("a third-party client that does not list it asks on a user's behalf; the consent page names the resource and its scopes; the token carries its audience and scopes", async () => {
    const uri = await registerResource("user");
    const party = await relyingParty({ firstParty: false, scopes: [] });
    const account = await seedAccount({}, PASSWORD);
    const started = await startAuthorization(party.config, party.redirectUri, {
      scope: "openid notes:read",
      resource: uri,
    });
    const { context, page } = await fillSignInForm(started.url, account.sub);
    await page.getByText(`On Notes (${new URL(uri).host}):`).waitFor();
    expect(await page.getByRole("listitem").allInnerTexts()).toEqual(expect.arrayContaining(["Read your notes"]));
    expect(await page.getByText("Add notes").count()).toBe(0);
    await page.getByRole("button", { name: "Allow" }).click();
    const callback = await backAtClient(page);
    await context.close();
    const tokens = await oidc.authorizationCodeGrant(
      party.config,
      callback,
      { pkceCodeVerifier: started.verifier, expectedState: started.state, expectedNonce: started.nonce },
      { resource: uri },
    );
    const claims = decodeJwt(tokens.access_token);
    expect(claims).toMatchObject({ aud: uri, scope: "openid notes:read", sub: account.sub });
    expect(tokens.scope).toBe("openid notes:read");

    // The consent keeps the resource's scope with its URI: the same word on another resource is asked again.
    const consent = (await services().consents.list(account.sub)).find((c) => c.client_id === party.clientId);
    expect(consent?.scopes).toEqual(expect.arrayContaining(["openid", `${uri}#notes:read`]));
    expect(consent?.scopes).not.toContain("notes:read");

    // The management API refuses a token of another audience.
    const read = await fetch(`${issuer}/api/v3/users/${account.sub}`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(read.status).toBe(401);

    // A refresh may repeat the resource, never change it.
    const refreshed = await oidc.refreshTokenGrant(party.config, tokens.refresh_token as string, { resource: uri });
    expect(decodeJwt(refreshed.access_token).aud).toBe(uri);
    await expect(
      oidc.refreshTokenGrant(party.config, refreshed.refresh_token as string, { resource: newUri() }),
    ).rejects.toMatchObject({ error: "invalid_target" });
  });

  it("a resource whose consent is the operator's admits only clients that list it; others hear invalid_target at their redirect URI", async () => {
    const uri = await registerResource("operator");
    const stranger = await relyingParty({ firstParty: false, scopes: [] });
    const refused = await startAuthorization(stranger.config, stranger.redirectUri, {
      scope: "notes:read",
      resource: uri,
    });
    const answer = await fetch(refused.url, { redirect: "manual" });
    expect(answer.status).toBe(303);
    const location = new URL(answer.headers.get("location") as string);
    expect(location.searchParams.get("error")).toBe("invalid_target");

    const listed = await createClient([], { redirectUris: [`${rp.url()}/cb`], resources: [uri], firstParty: true });
    const party = await oidc.discovery(new URL(issuer), listed.clientId, { client_secret: listed.secret }, undefined, {
      execute: [oidc.allowInsecureRequests],
    });
    const account = await seedAccount({}, PASSWORD);
    const started = await startAuthorization(party, `${rp.url()}/cb`, { scope: "openid notes:write", resource: uri });
    const tokens = await signInAndRedeem(party, started, account.sub);
    expect(decodeJwt(tokens.access_token)).toMatchObject({ aud: uri, scope: "openid notes:write" });
  });

  it("a request for a registered resource may ask only its scopes and the OpenID ones; none named asks them all", async () => {
    const uri = await registerResource("user");
    const party = await relyingParty({ firstParty: true, scopes: ["svc_api_user"] });
    const ours = await startAuthorization(party.config, party.redirectUri, {
      scope: "openid svc_api_user",
      resource: uri,
    });
    const answer = await fetch(ours.url, { redirect: "manual" });
    expect(new URL(answer.headers.get("location") as string).searchParams.get("error")).toBe("invalid_scope");

    const account = await seedAccount({}, PASSWORD);
    const all = await startAuthorization(party.config, party.redirectUri, { scope: "", resource: uri });
    all.url.searchParams.delete("scope");
    all.url.searchParams.delete("nonce");
    const tokens = await signInAndRedeem(party.config, all, account.sub);
    expect(decodeJwt(tokens.access_token)).toMatchObject({ aud: uri, scope: "notes:read notes:write" });
  });

  it("the token endpoint refuses a resource other than the one the user allowed", async () => {
    const uri = await registerResource("user");
    const party = await relyingParty({ firstParty: true, scopes: ["svc_api_user"] });
    const account = await seedAccount({}, PASSWORD);
    const started = await startAuthorization(party.config, party.redirectUri, {
      scope: "openid notes:read",
      resource: uri,
    });
    await expect(signInAndRedeem(party.config, started, account.sub, { resource: newUri() })).rejects.toMatchObject({
      error: "invalid_target",
    });
  });

  it("client_credentials: a listed registered resource gives its audience and scopes; an unlisted one, even open to users, is invalid_target", async () => {
    const open = await registerResource("user");
    const listed = await registerResource("operator");
    const client = await createClient(["svc_api_sys_users"], { resources: [listed] });
    const grant = async (resource: string, scope: string) => {
      const response = await fetch(`${issuer}/oauth/te`, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          authorization: `Basic ${Buffer.from(`${client.clientId}:${client.secret}`).toString("base64")}`,
        },
        body: new URLSearchParams({ grant_type: "client_credentials", scope, resource }),
      });
      return { status: response.status, body: (await response.json()) as Record<string, string> };
    };
    const ok = await grant(listed, "notes:read");
    expect(ok.status).toBe(200);
    expect(decodeJwt(ok.body.access_token)).toMatchObject({ aud: listed, scope: "notes:read", sub: client.clientId });
    expect(await grant(listed, "svc_api_sys_users")).toMatchObject({ status: 400, body: { error: "invalid_scope" } });
    expect(await grant(open, "notes:read")).toMatchObject({ status: 400, body: { error: "invalid_target" } });
    // The management API's identifier is its default audience.
    const own = await grant(issuer, "svc_api_sys_users");
    expect(decodeJwt(own.body.access_token).aud).toBe("svc-api");
  });
});

describe("the management API as an RFC 9728 protected resource", () => {
  it("serves its metadata where RFC 9728 3.1 puts it, and names it in every Bearer challenge", async () => {
    const metadataUrl = `${base()}/.well-known/oauth-protected-resource/svc`;
    const metadata = (await (await fetch(metadataUrl)).json()) as Record<string, unknown>;
    expect(metadata).toMatchObject({
      resource: issuer,
      authorization_servers: [issuer],
      bearer_methods_supported: ["header"],
    });
    expect(metadata.scopes_supported).toContain("svc_api_user");
    expect(metadata.scopes_supported).not.toContain("svc_api_sys_users");

    const none = await fetch(`${issuer}/api/v3/users/anyone`);
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toBe(`Bearer realm="svc", resource_metadata="${metadataUrl}"`);
    const narrow = await fetch(`${issuer}/api/v3/users/anyone`, {
      headers: { authorization: await systemBearer(["svc_groups"]) },
    });
    expect(narrow.headers.get("www-authenticate")).toBe(
      `Bearer realm="svc", error="insufficient_scope", scope="svc_api_sys_users", resource_metadata="${metadataUrl}"`,
    );
  });
});
