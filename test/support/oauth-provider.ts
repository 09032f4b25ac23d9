import { type MutableResponse, OAuth2Server, type TokenRequestIncomingMessage } from "oauth2-mock-server";
import { afterAll, beforeAll } from "vitest";
import { setEnvDefaults } from "../../lib/config";
import type { FederationProviderConfig } from "../../lib/config/settings";
import { createClient } from "./fixtures";

/**
 * A real OAuth 2.0 / OpenID Connect server on loopback (oauth2-mock-server): our client
 * code talks to it over HTTP exactly as to a real provider. Hooks only choose what the
 * provider answers (which account, how long a token lives, an error), never our side.
 */
export interface TestProvider {
  url: string;
  server: OAuth2Server;
  /** Bodies of every token endpoint request, in order (authorization_code, refresh_token). */
  tokenRequests: Array<Record<string, string>>;
  /** Access and refresh tokens the provider answered, in order. */
  issued: Array<{ access_token?: string; refresh_token?: string; grant_type: string }>;
  /** The next logins at the provider are this account (sub of id_token, access token and userinfo). */
  actAs(sid: string, name?: string): void;
  /** The next token answer (only the next) gets these changes, sent after `holdMs` when given. */
  nextTokenAnswer(change: (response: MutableResponse) => void, holdMs?: number): void;
  refreshRequests(): number;
  stop(): Promise<void>;
}

export async function startTestProvider(): Promise<TestProvider> {
  const server = new OAuth2Server();
  await server.issuer.keys.generate("RS256");
  await server.start(0, "127.0.0.1");
  const url = server.issuer.url as string;
  const tokenRequests: TestProvider["tokenRequests"] = [];
  const issued: TestProvider["issued"] = [];
  let account = { sid: "johndoe", name: "John Doe" };
  const pending: Array<{ change: (response: MutableResponse) => void; holdMs?: number }> = [];

  server.service.on("beforeTokenSigning", (token) => {
    token.payload.sub = account.sid;
  });
  server.service.on("beforeUserinfo", (response: MutableResponse) => {
    response.body = { sub: account.sid, preferred_username: account.name };
  });
  server.service.on("beforeResponse", (response: MutableResponse, req: TokenRequestIncomingMessage) => {
    const body = { ...(req.body as unknown as Record<string, string>) };
    tokenRequests.push(body);
    const next = pending.shift();
    next?.change(response);
    if (next?.holdMs) holdAnswer(req, next.holdMs);
    const answer = response.body as { access_token?: string; refresh_token?: string };
    issued.push({
      access_token: answer.access_token,
      refresh_token: answer.refresh_token,
      grant_type: body.grant_type,
    });
  });

  return {
    url,
    server,
    tokenRequests,
    issued,
    actAs(sid, name = `${sid} at the provider`) {
      account = { sid, name };
    },
    nextTokenAnswer(change, holdMs) {
      pending.push({ change, holdMs });
    },
    refreshRequests: () => tokenRequests.filter((r) => r.grant_type === "refresh_token").length,
    stop: () => server.stop(),
  };
}

/** Delays the answer the library sends right after its hook (express keeps the response on req.res). */
function holdAnswer(req: TokenRequestIncomingMessage, ms: number): void {
  const res = (req as unknown as { res: { json(body: unknown): unknown } }).res;
  const send = res.json.bind(res);
  res.json = (body) => {
    setTimeout(() => send(body), ms);
    return res;
  };
}

/** A provider entry of SVC_CONFIG pointing at the test provider. */
export function providerEntry(
  url: string,
  overrides: Partial<FederationProviderConfig> = {},
): Omit<FederationProviderConfig, "rememberTokens" | "scope"> & Partial<FederationProviderConfig> {
  return {
    type: "oidc",
    name: "mock",
    authorizeUrl: `${url}/authorize`,
    tokenUrl: `${url}/token`,
    userinfoUrl: `${url}/userinfo`,
    clientId: "svc-identity-test",
    clientSecret: "provider-secret-for-tests",
    rememberTokens: true,
    scope: "openid profile offline_access",
    ...overrides,
  };
}

/** The operator's settings for this test file (read again on the next config()). */
export function useSettings(settings: Record<string, unknown>): void {
  delete process.env.SVC_CONFIG_JSON;
  setEnvDefaults({ SVC_CONFIG_JSON: JSON.stringify(settings) });
}

/**
 * The calling file's provider, configured as `oidc:mock`, and an application that may bind
 * accounts to it with `callback` as its registered redirect URI.
 */
export function useBindingProvider(callback: string): { provider: TestProvider; web: { clientId: string } } {
  const used = {} as { provider: TestProvider; web: { clientId: string } };
  beforeAll(async () => {
    used.provider = await startTestProvider();
    useSettings({ federation: { providers: [providerEntry(used.provider.url)] } });
    used.web = await createClient(["svc_api_sys_ufa"], { redirectUris: [callback] });
  });
  afterAll(() => used.provider.stop());
  return used;
}
