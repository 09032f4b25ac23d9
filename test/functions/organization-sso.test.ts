import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keys } from "../../lib/store/keys";
import { systemBearer } from "../support/fixtures";
import { startTestProvider, type TestProvider } from "../support/oauth-provider";
import { orgWithAdmin } from "../support/organizations";
import { request } from "../support/requests";
import { storedItem, storedItems } from "../support/stored";

/** An organization's own OpenID Connect provider, configured through the API (docs/organizations.md). */

const SAMPLES = {
  put: "events/orgs/sso-put.json",
  get: "events/orgs/sso-get.json",
  delete: "events/orgs/sso-delete.json",
} as const;
const SECRET = "idp-client-secret-Zq81xWp";

let provider: TestProvider;
beforeAll(async () => {
  provider = await startTestProvider();
});
afterAll(() => provider.stop());

const connection = (overrides: Record<string, unknown> = {}) => ({
  issuer: provider.url,
  ...overrides,
  // A path the provider serves no discovery document under.
  ...(overrides.issuer === "TENANT" && { issuer: `${provider.url}/tenant` }),
  clientId: "acme-at-idp",
  clientSecret: SECRET,
  defaultRoles: ["SYS_MON"],
  claims: { givenName: "first_name" },
  ...Object.fromEntries(Object.entries(overrides).filter(([name]) => name !== "issuer")),
});

const put = (orgId: string, authorization: string, body: Record<string, unknown> = connection()) =>
  request("groups", SAMPLES.put, { params: { orgId }, body, authorization });

describe("PUT/GET/DELETE /svc/api/v3/orgs/{orgId}/sso", () => {
  it("when the org's admin configures its provider, the discovery endpoints are kept, the secret is sealed and never shown", async () => {
    const { orgId, admin, token } = await orgWithAdmin();
    const configured = await put(orgId, token);
    expect(configured.statusCode).toBe(200);
    const expected = {
      orgId,
      issuer: provider.url,
      clientId: "acme-at-idp",
      scopes: ["openid", "email", "profile"],
      claims: { email: "email", emailVerified: "email_verified", givenName: "first_name", familyName: "family_name" },
      defaultRoles: ["SYS_MON"],
      enabled: true,
      callbackUrl: expect.stringMatching(/\/oauth\/federated\/callback$/),
    };
    expect(configured.json).toMatchObject(expected);
    expect(JSON.stringify(configured.json)).not.toContain(SECRET);

    const read = await request("groups", SAMPLES.get, { params: { orgId }, authorization: token });
    expect(read.statusCode).toBe(200);
    expect(read.json).toMatchObject(expected);
    expect(JSON.stringify(read.json)).not.toContain(SECRET);
    expect(Object.keys(read.json as object)).not.toContain("sealedSecret");

    const item = await storedItem(keys.orgSso(orgId));
    expect(item).toMatchObject({
      entity: "org-sso",
      authorizeUrl: `${provider.url}/authorize`,
      tokenUrl: `${provider.url}/token`,
      jwksUri: `${provider.url}/jwks`,
    });
    expect(JSON.stringify(item)).not.toContain(SECRET);
    expect(item?.sealedSecret).toMatch(/^v1\./);

    // The change is the admin's security event, with the org; the secret is in no event.
    const events = (await storedItems(admin.sub, "EVENT#")).filter((e) => e.type === "orgs.sso-put");
    expect(events).toHaveLength(1);
    expect(events[0].prms).toMatchObject({ org: orgId, target: "sso", roles: ["SYS_MON"] });
    expect(JSON.stringify(events)).not.toContain(SECRET);
  });

  it("when an application with svc_groups alone names default roles, it answers 401 insufficient_scope and stores nothing", async () => {
    const { orgId } = await orgWithAdmin();
    const refused = await put(orgId, await systemBearer(["svc_groups"]));
    expect(refused.statusCode).toBe(401);
    expect(await storedItem(keys.orgSso(orgId))).toBeUndefined();
  });

  it("when an application with svc_groups deletes it, it is gone and reads 404 sso_not_configured", async () => {
    const { orgId, token } = await orgWithAdmin();
    expect((await put(orgId, token)).statusCode).toBe(200);
    const system = await systemBearer(["svc_groups"]);
    const removed = await request("groups", SAMPLES.delete, { params: { orgId }, authorization: system });
    expect(removed.statusCode).toBe(204);
    expect(await storedItem(keys.orgSso(orgId))).toBeUndefined();
    const read = await request("groups", SAMPLES.get, { params: { orgId }, authorization: system });
    expect(read.statusCode).toBe(404);
    expect(read.json).toMatchObject({ error: "sso_not_configured" });
    const again = await request("groups", SAMPLES.delete, { params: { orgId }, authorization: system });
    expect(again.statusCode).toBe(404);
  });

  it.each([
    ["a plain http issuer", { issuer: "http://idp.example.com" }, "wrong_value"],
    ["an issuer with no discovery document", { issuer: "https://127.0.0.1:1" }, "sso_discovery_failed"],
    ["an issuer whose discovery document is missing", { issuer: "TENANT" }, "sso_discovery_failed"],
    ["scopes without openid", { scopes: ["email"] }, "wrong_value"],
    ["a role that is not for groups", { defaultRoles: ["NO_SUCH_RIGHT"] }, "unknown_right"],
    ["an unknown field", { clientSecretPlain: "x" }, undefined],
    ["a claim name with spaces", { claims: { email: "e mail" } }, undefined],
  ])("when the input has %s, it answers 400 and stores nothing", async (_what, change, error) => {
    const { orgId, token } = await orgWithAdmin();
    const refused = await put(orgId, token, connection(change));
    expect(refused.statusCode).toBe(400);
    if (error) expect(refused.json).toMatchObject({ error });
    expect(JSON.stringify(refused.json)).not.toContain(SECRET);
    expect(await storedItem(keys.orgSso(orgId))).toBeUndefined();
  });

  it("when an admin of organization A calls any SSO route of organization B, it answers 404 group_not_found and B's connection is untouched", async () => {
    const a = await orgWithAdmin();
    const b = await orgWithAdmin();
    expect((await put(b.orgId, b.token)).statusCode).toBe(200);
    const before = await storedItem(keys.orgSso(b.orgId));
    const calls = {
      put: () => put(b.orgId, a.token, connection({ clientId: "hijack" })),
      get: () => request("groups", SAMPLES.get, { params: { orgId: b.orgId }, authorization: a.token }),
      delete: () => request("groups", SAMPLES.delete, { params: { orgId: b.orgId }, authorization: a.token }),
    };
    for (const [name, call] of Object.entries(calls)) {
      const answer = await call();
      expect(answer.statusCode, name).toBe(404);
      expect(answer.json, name).toMatchObject({ error: "group_not_found" });
    }
    expect(await storedItem(keys.orgSso(b.orgId))).toEqual(before);
  });
});
