import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import { decodeJwt } from "jose";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startNotesServer } from "../../examples/mcp-server/notes-server.mjs";
import { services } from "../../lib/container";
import { seedAccount, userToken } from "../support/fixtures";
import { PASSWORD, useHostedSignIn } from "../support/hosted-sign-in";
import { useSettings } from "../support/oauth-provider";

/**
 * examples/mcp-server, protected by svc-identity, and the official MCP SDK's client: with
 * no manual setup beyond registering the resource, the client reads the server's RFC 9728
 * metadata, discovers us, registers itself (RFC 7591), signs the user in with PKCE and
 * `resource` through chromium, calls the tools, and refreshes when its token is refused.
 */

const { issuer, rp, fillSignInForm, backAtClient } = await useHostedSignIn();
let notes: Awaited<ReturnType<typeof startNotesServer>>;

beforeAll(async () => {
  notes = await startNotesServer({ issuer });
  const now = Math.floor(Date.now() / 1000);
  const scopes = [
    { name: "notes:read", description: "Read your notes" },
    { name: "notes:write", description: "Add notes" },
  ];
  await services().resources.create(
    { uri: notes.url, name: "Notes", scopes, consent: "user", createdAt: now, updatedAt: now },
    [],
  );
});
afterAll(() => notes?.close());
afterEach(() => useSettings({}));

/** An agent's OAuth state, kept in memory as a CLI would keep it in a file. */
class AgentAuth {
  client?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = "";
  authorizationUrl?: URL;
  refreshes = 0;
  readonly redirectUrl = `${rp.url()}/cb`;
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "Notes Agent",
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  clientInformation = () => this.client;
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens = () => this.saved;
  saveTokens(tokens: OAuthTokens) {
    if (this.saved) this.refreshes++;
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier = () => this.verifier;
}

async function connected(auth: AgentAuth) {
  const client = new Client({ name: "notes-agent", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(notes.url), { authProvider: auth }));
  return client;
}

const textOf = (result: unknown) => (result as { content: { text: string }[] }).content[0].text;

describe("examples/mcp-server with the MCP SDK's client", () => {
  it("discovers, registers, signs the user in with consent to the resource, calls the tools, and refreshes", async () => {
    useSettings({
      clientRegistration: { mode: "open", scopes: ["svc_api_user"], unusedDays: 30, perAddressPerHour: 50 },
    });
    const auth = new AgentAuth();
    const first = new StreamableHTTPClientTransport(new URL(notes.url), { authProvider: auth });
    await expect(new Client({ name: "notes-agent", version: "1.0.0" }).connect(first)).rejects.toBeInstanceOf(
      UnauthorizedError,
    );

    // It registered itself, and sends the user to us for the MCP server's URL and scopes.
    const clientId = auth.client?.client_id as string;
    expect((await services().clients.get(clientId))?.registration).toMatchObject({ clientName: "Notes Agent" });
    const asked = auth.authorizationUrl as URL;
    expect(asked.href.startsWith(`${issuer}/oauth/authorize`)).toBe(true);
    expect(asked.searchParams.get("resource")).toBe(notes.url);
    expect(asked.searchParams.get("code_challenge_method")).toBe("S256");
    expect(asked.searchParams.get("scope")).toBe("notes:read notes:write");

    const account = await seedAccount({}, PASSWORD);
    const { context, page } = await fillSignInForm(asked, account.sub);
    await page.getByText(`On Notes (${new URL(notes.url).host}):`).waitFor();
    expect(await page.getByRole("listitem").allInnerTexts()).toEqual(["Read your notes", "Add notes"]);
    await page.getByRole("button", { name: "Allow" }).click();
    const callback = await backAtClient(page);
    await context.close();
    await first.finishAuth(callback.searchParams.get("code") as string);

    const token = decodeJwt(auth.saved?.access_token as string);
    expect(token).toMatchObject({ aud: notes.url, sub: account.sub, client_id: clientId });
    expect(token.scope).toBe("notes:read notes:write");

    const client = await connected(auth);
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(["add_note", "list_notes"]);
    expect(textOf(await client.callTool({ name: "add_note", arguments: { text: "buy milk" } }))).toBe("Added note 1.");
    expect(textOf(await client.callTool({ name: "list_notes", arguments: {} }))).toBe("1. buy milk");

    // A refused token: the client refreshes, with the same resource, and goes on.
    const before = auth.saved as OAuthTokens;
    auth.saved = { ...before, access_token: "not-a-token" };
    expect(textOf(await client.callTool({ name: "list_notes", arguments: {} }))).toBe("1. buy milk");
    expect(auth.refreshes).toBe(1);
    expect(auth.saved.refresh_token).not.toBe(before.refresh_token);
    expect(decodeJwt(auth.saved.access_token).aud).toBe(notes.url);
    await client.close();

    // Its token opens the MCP server only: the management API refuses it.
    const api = await fetch(`${issuer}/api/v3/users/${account.sub}`, {
      headers: { authorization: `Bearer ${auth.saved.access_token}` },
    });
    expect(api.status).toBe(401);
  });

  it("refuses a token of ours issued for another audience, and one without the tool's scope", async () => {
    const account = await seedAccount();
    const call = (token: string, body: unknown) =>
      fetch(notes.url, {
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify(body),
      });
    const listTools = { jsonrpc: "2.0", id: 1, method: "tools/list" };

    const forApi = await userToken(account.sub, ["svc_api_user"]);
    const refused = await call(forApi, listTools);
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toContain('error="invalid_token"');

    const { token: readOnly } = await services().accessTokens.issue({
      sub: account.sub,
      clientId: "test-client",
      scopes: ["notes:read"],
      ttlSeconds: 60,
      audience: notes.url,
    });
    expect((await call(readOnly, listTools)).status).toBe(200);
    const add = { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "add_note", arguments: { text: "x" } } };
    const narrow = await call(readOnly, add);
    expect(narrow.status).toBe(403);
    expect(narrow.headers.get("www-authenticate")).toContain('scope="notes:read notes:write"');
  });
});
