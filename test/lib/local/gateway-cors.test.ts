import { describe, expect, it } from "vitest";
import { createClient } from "../../support/fixtures";
import { useGateway } from "../../support/gateway";
import { basicAuthorization } from "../../support/requests";

const APP = "http://127.0.0.1:5173";
const OTHER = "https://evil.example.org";

// One local gateway per CORS setting; the test environment's SVC_CONFIG names none: the default.
const listed = useGateway({ cors: { allowedOrigins: [APP, "https://app.example.org"] } });
const wildcard = useGateway({ cors: { allowedOrigins: ["*"] } });
const unconfigured = useGateway();

function preflight(base: string, path: string, origin: string, method = "POST") {
  return fetch(`${base}${path}`, {
    method: "OPTIONS",
    headers: {
      origin,
      "access-control-request-method": method,
      "access-control-request-headers": "authorization,content-type,svc-ci-ua-id,dpop",
    },
  });
}

function corsHeaders(response: Response): Record<string, string> {
  return Object.fromEntries([...response.headers].filter(([name]) => name.startsWith("access-control-")));
}

// What a browser SPA with PKCE calls: token endpoint, discovery and JWKS, userinfo, the v3 interface.
const BROWSER_PATHS = [
  ["/svc/oauth/te", "POST"],
  ["/svc/.well-known/jwks.json", "GET"],
  ["/svc/.well-known/openid-configuration", "GET"],
  ["/svc/oauth/userinfo", "GET"],
  ["/svc/api/v3/users/00000000-0000-4000-8000-000000000000", "PATCH"],
] as const;

describe("CORS in the local gateway", () => {
  it.each(BROWSER_PATHS)(
    "when an allowed origin preflights %s, it answers 204 with the policy",
    async (path, method) => {
      const response = await preflight(listed(), path, APP, method);
      expect(response.status).toBe(204);
      expect(corsHeaders(response)).toEqual({
        "access-control-allow-origin": APP,
        "access-control-allow-methods": "GET,POST,PUT,PATCH,DELETE",
        "access-control-allow-headers": "authorization,content-type,svc-ci-ua-id,dpop",
        "access-control-max-age": "3600",
      });
      expect(response.headers.get("vary")).toBe("Origin");
    },
  );

  it("when an allowed origin calls the token endpoint, the answer carries its origin and exposes the headers", async () => {
    const client = await createClient();
    const response = await fetch(`${listed()}/svc/oauth/te`, {
      method: "POST",
      headers: {
        origin: APP,
        authorization: basicAuthorization(client.clientId, client.secret),
        "content-type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams({ grant_type: "client_credentials", scope: "svc_api_sys_users" }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("access-control-allow-origin")).toBe(APP);
    expect(response.headers.get("access-control-expose-headers")).toBe(
      "www-authenticate,x-request-id,retry-after,link,dpop-nonce",
    );
    expect(response.headers.get("access-control-allow-credentials")).toBeNull();
    expect(response.headers.get("vary")).toBe("Origin");
  });

  it("when an allowed origin gets an error (no token), the error carries the CORS headers too", async () => {
    const response = await fetch(`${listed()}/svc/oauth/userinfo`, { headers: { origin: APP } });
    expect(response.status).toBe(401);
    expect(response.headers.get("access-control-allow-origin")).toBe(APP);
  });

  it("when another origin preflights or calls, it gets no CORS headers and no error", async () => {
    const pre = await preflight(listed(), "/svc/oauth/te", OTHER);
    expect(pre.status).toBe(204);
    expect(corsHeaders(pre)).toEqual({});
    const actual = await fetch(`${listed()}/svc/.well-known/jwks.json`, { headers: { origin: OTHER } });
    expect(actual.status).toBe(200);
    expect(corsHeaders(actual)).toEqual({});
  });

  it("when an OPTIONS request is no preflight (no Access-Control-Request-Method), it reaches the routes", async () => {
    const response = await fetch(`${listed()}/svc/health`, { method: "OPTIONS", headers: { origin: APP } });
    expect(response.status).toBe(405);
    expect(response.headers.get("access-control-allow-origin")).toBe(APP);
  });

  it("when nothing is configured, OPTIONS reaches the routes as before and no answer has CORS headers", async () => {
    const pre = await preflight(unconfigured(), "/svc/oauth/te", APP);
    expect(corsHeaders(pre)).toEqual({});
    expect(pre.status).toBe(405);
    const actual = await fetch(`${unconfigured()}/svc/.well-known/jwks.json`, { headers: { origin: APP } });
    expect(actual.status).toBe(200);
    expect(corsHeaders(actual)).toEqual({});
  });

  it('when "*" is configured, any origin gets ACAO * with no credentials and no Vary', async () => {
    const pre = await preflight(wildcard(), "/svc/oauth/te", OTHER);
    expect(pre.status).toBe(204);
    expect(pre.headers.get("access-control-allow-origin")).toBe("*");
    expect(pre.headers.get("access-control-allow-credentials")).toBeNull();
    const actual = await fetch(`${wildcard()}/svc/.well-known/jwks.json`, { headers: { origin: OTHER } });
    expect(actual.headers.get("access-control-allow-origin")).toBe("*");
    expect(actual.headers.get("access-control-allow-credentials")).toBeNull();
    expect(actual.headers.get("vary")).toBeNull();
  });
});
