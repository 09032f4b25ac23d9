import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import * as oidc from "openid-client";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { isMetadataDocumentId } from "../../lib/domain/clients/metadata-document";
import { fetchMetadataDocument, isPublicAddress, keepSeconds } from "../../lib/metadata-document-fetch";
import { keys } from "../../lib/store/keys";
import { seedAccount } from "../support/fixtures";
import { PASSWORD, useHostedSignIn } from "../support/hosted-sign-in";
import { useSettings } from "../support/oauth-provider";
import { storedItem } from "../support/stored";

/**
 * Client ID Metadata Documents (the MCP authorization spec's client identification): a
 * client_id that is a URL names the client's metadata, served by the client itself.
 */

const { issuer, rp, startAuthorization, allowAndRedeem } = await useHostedSignIn();

/** Documents by path, as a client's own server publishes them; each fetch is counted. */
const documents = new Map<string, { body: string; headers?: Record<string, string>; status?: number }>();
const fetches: string[] = [];
let server: Server;
let base = "";
beforeAll(async () => {
  server = createServer((req, res) => {
    fetches.push(req.url ?? "");
    const doc = documents.get(req.url ?? "");
    res.writeHead(doc?.status ?? (doc ? 200 : 404), { "content-type": "application/json", ...doc?.headers });
    res.end(doc?.body ?? "{}");
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", () => done()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => server.close());
afterEach(() => useSettings({}));

const ON = { clientRegistration: { scopes: ["svc_api_user"], metadataDocuments: true } };
let served = 0;

/** Publishes a document at a fresh path (the service keeps documents per container); its URL is the client_id. */
function publish(metadata: (url: string) => Record<string, unknown>, headers?: Record<string, string>) {
  const path = `/clients/${++served}.json`;
  const url = `${base}${path}`;
  documents.set(path, { body: JSON.stringify(metadata(url)), headers });
  return { url, path };
}

const agent = (url: string) => ({
  client_id: url,
  client_name: "Doc Agent",
  redirect_uris: [`${rp.url()}/cb`],
  grant_types: ["authorization_code", "refresh_token"],
  token_endpoint_auth_method: "none",
});

async function relyingParty(clientId: string) {
  return oidc.discovery(new URL(issuer), clientId, {}, oidc.None(), { execute: [oidc.allowInsecureRequests] });
}

/** The authorization endpoint's first answer for a client_id and redirect URI. */
async function authorize(clientId: string, redirectUri = `${rp.url()}/cb`) {
  const query = new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: redirectUri,
    scope: "openid",
    state: "s",
    code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
    code_challenge_method: "S256",
  });
  const answer = await fetch(`${issuer}/oauth/authorize?${query}`, { redirect: "manual" });
  return { status: answer.status, body: await answer.text() };
}

describe("client ID metadata documents", () => {
  it("a client named by its document URL signs a user in after consent naming its host, and refreshes; nothing is stored for it", async () => {
    useSettings(ON);
    const { url, path } = publish(agent, { "cache-control": "max-age=600" });
    const party = await relyingParty(url);
    expect(party.serverMetadata().client_id_metadata_document_supported).toBe(true);
    const account = await seedAccount({}, PASSWORD);
    const started = await startAuthorization(party, `${rp.url()}/cb`, { scope: "openid offline_access svc_api_user" });
    const asks = `Doc Agent (${new URL(base).host}) asks to:`;
    const { tokens } = await allowAndRedeem(party, started, account.sub, asks);
    expect(tokens.claims()).toMatchObject({ sub: account.sub, aud: url });
    expect((await oidc.refreshTokenGrant(party, String(tokens.refresh_token))).access_token).toEqual(
      expect.any(String),
    );
    // Fetched once for the sign-in pages and the token endpoint alike: it said max-age=600.
    expect(fetches.filter((f) => f === path)).toHaveLength(1);
    expect(await storedItem(keys.client(url))).toBeUndefined();
  });

  it("keeps a document as its Cache-Control says: no-store is fetched again each time", async () => {
    useSettings(ON);
    const { url, path } = publish(agent, { "cache-control": "no-store" });
    expect((await authorize(url)).status).toBe(200);
    expect((await authorize(url)).status).toBe(200);
    expect(fetches.filter((f) => f === path)).toHaveLength(2);
  });

  it("refuses a document that does not hold to the rules, as an unknown client, never redirecting", async () => {
    useSettings(ON);
    const refused: [string, (url: string) => Record<string, unknown>][] = [
      ["another client_id", (url) => ({ ...agent(url), client_id: `${url}x` })],
      ["a client secret", (url) => ({ ...agent(url), client_secret: "s3cret" })],
      ["a secret auth method", (url) => ({ ...agent(url), token_endpoint_auth_method: "client_secret_basic" })],
      ["no redirect URIs", (url) => ({ ...agent(url), redirect_uris: [] })],
      ["a plain-http redirect", (url) => ({ ...agent(url), redirect_uris: ["http://agent.example/cb"] })],
      ["a system grant", (url) => ({ ...agent(url), grant_types: ["client_credentials"] })],
      ["too large", (url) => ({ ...agent(url), padding: "x".repeat(6000) })],
    ];
    for (const [why, metadata] of refused) {
      const { url } = publish(metadata);
      const answer = await authorize(url);
      expect({ why, status: answer.status }).toEqual({ why, status: 400 });
      expect(answer.body).toMatch(/not registered here|не зарегистрировано/);
    }
    documents.set("/clients/not-json.json", { body: "<html>" });
    expect((await authorize(`${base}/clients/not-json.json`)).status).toBe(400);
    expect((await authorize(`${base}/clients/missing.json`)).status).toBe(400);
    // A redirect URI the document does not list.
    const { url } = publish(agent);
    expect((await authorize(url, `${rp.url()}/elsewhere`)).status).toBe(400);
  });

  it("is off unless the operator turns it on: the URL is an unknown client and is never fetched", async () => {
    const { url, path } = publish(agent);
    expect((await authorize(url)).status).toBe(400);
    expect(fetches).not.toContain(path);
    const metadata = (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as Record<
      string,
      unknown
    >;
    expect(metadata.client_id_metadata_document_supported).toBe(false);
  });
});

describe("fetching documents (lib/metadata-document-fetch.ts)", () => {
  it("names documents by https URLs with a path only; plain http to loopback only where allowed", () => {
    expect(isMetadataDocumentId("https://agent.example/client.json")).toBe(true);
    for (const id of [
      "my-app",
      "https://agent.example/",
      "https://agent.example",
      "https://agent.example/a#b",
      "https://user:pw@agent.example/c.json",
      "https://agent.example/a/../c.json",
      "http://agent.example/c.json",
      "http://127.0.0.1:8080/c.json",
    ])
      expect({ id, taken: isMetadataDocumentId(id) }).toEqual({ id, taken: false });
    expect(isMetadataDocumentId("http://127.0.0.1:8080/c.json", true)).toBe(true);
    expect(isMetadataDocumentId("http://agent.example/c.json", true)).toBe(false);
  });

  it("never connects to an address inside the network, whatever the name resolves to", async () => {
    for (const [address, family] of [
      ["127.0.0.1", 4],
      ["10.1.2.3", 4],
      ["172.20.0.1", 4],
      ["192.168.1.1", 4],
      ["169.254.169.254", 4],
      ["100.64.0.1", 4],
      ["0.0.0.0", 4],
      ["::1", 6],
      ["fd00::1", 6],
      ["fe80::1", 6],
      ["::ffff:127.0.0.1", 6],
    ] as const)
      expect({ address, public: isPublicAddress(address, family) }).toEqual({ address, public: false });
    expect(isPublicAddress("93.184.215.14", 4)).toBe(true);
    expect(isPublicAddress("2606:2800:21f:cb07:6820:80da:af6b:8b2c", 6)).toBe(true);
    const fetchDocument = (url: string) => fetchMetadataDocument(url, false);
    await expect(fetchDocument("https://localhost/c.json")).rejects.toThrow(/internal address/);
    await expect(fetchDocument("https://127.0.0.1/c.json")).rejects.toThrow(/internal address/);
    await expect(fetchDocument(`${base}/clients/1.json`)).rejects.toThrow(/not https/);
  });

  it("keeps a document as long as its Cache-Control allows, a day at most", () => {
    expect(keepSeconds(undefined)).toBe(300);
    expect(keepSeconds("public, max-age=120")).toBe(120);
    expect(keepSeconds("max-age=9999999")).toBe(86_400);
    expect(keepSeconds("no-store")).toBe(0);
    expect(keepSeconds("no-cache, max-age=60")).toBe(0);
  });
});
