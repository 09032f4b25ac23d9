import jwt from "jsonwebtoken";
import { JwksClient } from "jwks-rsa";
import { describe, expect, it } from "vitest";
import { createClient, seedAccount } from "../../support/fixtures";
import { useGateway } from "../../support/gateway";
import { basicAuthorization } from "../../support/requests";

const base = useGateway();

async function clientToken(scope: string) {
  const client = await createClient();
  const response = await fetch(`${base()}/svc/oauth/te`, {
    method: "POST",
    headers: {
      authorization: basicAuthorization(client.clientId, client.secret),
      "content-type": "application/x-www-form-urlencoded",
    },
    body: new URLSearchParams({ grant_type: "client_credentials", scope }),
  });
  return { response, body: (await response.json()) as { access_token: string; scope: string }, client };
}

describe("the local gateway", () => {
  it("when a token is issued over HTTP, a JWKS client library we did not write verifies it", async () => {
    const { response, body, client } = await clientToken("svc_api_sys_users");
    expect(response.status).toBe(200);
    const jwks = new JwksClient({ jwksUri: `${base()}/svc/.well-known/jwks.json` });
    const header = jwt.decode(body.access_token, { complete: true })?.header;
    const key = await jwks.getSigningKey(header?.kid);
    const claims = jwt.verify(body.access_token, key.getPublicKey(), {
      algorithms: ["ES256"],
      issuer: "svc-identity",
      audience: "svc-api",
    }) as jwt.JwtPayload;
    expect(claims.client_id).toBe(client.clientId);
    expect(claims.scope).toBe("svc_api_sys_users");
    expect(() => jwt.verify(`${body.access_token}x`, key.getPublicKey(), { algorithms: ["ES256"] })).toThrow();
  });

  it("when a user is read with that token over HTTP, it answers the attributes", async () => {
    const account = await seedAccount();
    const { body } = await clientToken("svc_api_sys_users");
    const response = await fetch(`${base()}/svc/api/v3/users/${account.sub}`, {
      headers: { authorization: `Bearer ${body.access_token}` },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-request-id")).toMatch(/[0-9a-f-]{36}/);
    expect(((await response.json()) as { sub: string }).sub).toBe(account.sub);
  });

  it("when the path has no route, it answers 404 JSON; a wrong method 405", async () => {
    const missing = await fetch(`${base()}/svc/api/v3/nowhere`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: "not_found" });
    const wrong = await fetch(`${base()}/svc/health`, { method: "DELETE" });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toBe("GET");
  });

  it("when a body exceeds API Gateway's 10 MB, it answers 413 as API Gateway does", async () => {
    const response = await fetch(`${base()}/svc/oauth/te`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "a".repeat(10 * 1024 * 1024 + 10),
    });
    expect(response.status).toBe(413);
  });

  it("when a body is between 1 MB and 10 MB, the function answers 400 in the route's shape", async () => {
    const response = await fetch(`${base()}/svc/oauth/te`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `grant_type=client_credentials&scope=${"a".repeat(2 * 1024 * 1024)}`,
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: "invalid_request" });
  });
});
