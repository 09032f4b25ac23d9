import { PutCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { config } from "../../lib/config";
import { services } from "../../lib/container";
import { documentClient } from "../../lib/document-client";
import { instanceIdOf } from "../../lib/domain/accounts/instance-id";
import { digestSecret } from "../../lib/domain/credentials/secret-digest";
import { domainOwnerItem } from "../../lib/store/domain-directory";
import { keys } from "../../lib/store/keys";
import { seedAccount, systemBearer, uniqueId, userBearer } from "../support/fixtures";
import { orgWithAdmin } from "../support/organizations";
import { request } from "../support/requests";
import { storedItem } from "../support/stored";

/**
 * SCIM 2.0 provisioning per organization (docs/scim.md), with the requests Okta and
 * Microsoft Entra ID send (their provisioning guides' payloads), on DynamoDB Local.
 */

const SAMPLES = {
  token: "events/orgs/scim-token.json",
  connection: "events/orgs/scim-get.json",
  disconnect: "events/orgs/scim-delete.json",
  config: "events/scim/service-provider-config.json",
  resourceTypes: "events/scim/resource-types.json",
  schemas: "events/scim/schemas.json",
  list: "events/scim/users-list.json",
  create: "events/scim/users-create.json",
  get: "events/scim/users-get.json",
  replace: "events/scim/users-replace.json",
  patch: "events/scim/users-patch.json",
  remove: "events/scim/users-delete.json",
  groupList: "events/scim/groups-list.json",
  groupCreate: "events/scim/groups-create.json",
  groupGet: "events/scim/groups-get.json",
  groupReplace: "events/scim/groups-replace.json",
  groupPatch: "events/scim/groups-patch.json",
  groupRemove: "events/scim/groups-delete.json",
} as const;

const SCIM_ERROR = "urn:ietf:params:scim:api:messages:2.0:Error";
const PATCH_OP = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
const ENTERPRISE = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";

interface ScimUser {
  id: string;
  userName: string;
  active: boolean;
  name?: Record<string, string>;
  emails?: Array<Record<string, unknown>>;
  meta: { version: string; location: string; resourceType: string };
  [attribute: string]: unknown;
}

async function organization() {
  const { orgId, admin, token: adminToken } = await orgWithAdmin();
  const issued = await request("groups", SAMPLES.token, { params: { orgId }, authorization: adminToken });
  expect(issued.statusCode).toBe(201);
  const { token } = issued.json as { token: string };
  return { orgId, admin, adminToken, token, bearer: `Bearer ${token}` };
}

/** A domain the organization verified, as its DNS check would have left it. */
async function verifiedDomain(orgId: string): Promise<string> {
  const domain = `${uniqueId("d")}.example`.toLowerCase();
  await documentClient().send(
    new PutCommand({ TableName: config().tableName, Item: domainOwnerItem(domain, orgId, "none", 1) }),
  );
  return domain;
}

type Org = Awaited<ReturnType<typeof organization>>;

const scim = (org: Org, sample: keyof typeof SAMPLES, changes: Parameters<typeof request>[2] = {}) =>
  request("scim", SAMPLES[sample], { authorization: org.bearer, ...changes });

/** Okta's create (developer.okta.com, SCIM 2.0 protocol reference), password sync on. */
const oktaUser = (userName: string) => ({
  schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"],
  userName,
  name: { givenName: "Test", familyName: "User" },
  emails: [{ primary: true, value: userName, type: "work" }],
  displayName: "Test User",
  locale: "en-US",
  externalId: uniqueId("00u"),
  groups: [],
  password: "1mz050nq",
  active: true,
});

/** Entra ID's create (learn.microsoft.com, "Develop a SCIM endpoint", user operations). */
const entraUser = (suffix: string) => ({
  schemas: ["urn:ietf:params:scim:schemas:core:2.0:User", ENTERPRISE],
  externalId: `0a21f0f2-8d2a-4f8e-bf98-${suffix}`,
  userName: `Test_User_${suffix}`,
  active: true,
  emails: [{ primary: true, type: "work", value: `Test_User_${suffix}@testuser.com` }],
  meta: { resourceType: "User" },
  name: { formatted: "givenName familyName", familyName: "familyName", givenName: "givenName" },
  roles: [],
  [ENTERPRISE]: { department: "Sales" },
});

async function create(org: Org, body: Record<string, unknown>) {
  const created = await scim(org, "create", { body });
  expect(created.statusCode, created.body).toBe(201);
  return created.json as ScimUser;
}

const patch = (org: Org, id: string, operations: unknown[], headers: Record<string, string> = {}) =>
  scim(org, "patch", { params: { id }, body: { schemas: [PATCH_OP], Operations: operations }, headers });

const isMember = async (orgId: string, sub: string) =>
  (await services().organizations.memberState(orgId, sub)) !== undefined;

describe("the organization's SCIM token (POST/GET/DELETE /svc/api/v3/orgs/{orgId}/scim)", () => {
  it("when an admin takes a token, it is shown once, only its digest is stored, and rotating or removing it refuses the old one at once", async () => {
    const org = await organization();
    const first = await request("scim", SAMPLES.config, { authorization: org.bearer });
    expect(first.statusCode).toBe(200);
    const connection = await storedItem(keys.scimConnection(org.orgId));
    expect(connection).toMatchObject({ entity: "scim-connection", tokenDigest: digestSecret(org.token) });
    expect(JSON.stringify(connection)).not.toContain(org.token);
    expect(await storedItem(keys.scimToken(digestSecret(org.token)))).toMatchObject({ orgId: org.orgId });

    const read = await request("groups", SAMPLES.connection, {
      params: { orgId: org.orgId },
      authorization: org.adminToken,
    });
    expect(read.statusCode).toBe(200);
    expect(read.json).toMatchObject({
      orgId: org.orgId,
      baseUrl: `${config().issuer}/scim/v2`,
      tokenHint: org.token.slice(-4),
    });
    expect(read.body).not.toContain(org.token);

    const rotated = await request("groups", SAMPLES.token, {
      params: { orgId: org.orgId },
      authorization: org.adminToken,
    });
    expect(rotated.statusCode).toBe(201);
    expect(rotated.headers["cache-control"]).toBe("no-store");
    const next = (rotated.json as { token: string }).token;
    expect(next).toMatch(/^scim_[A-Za-z0-9_-]{43}$/);
    const old = await request("scim", SAMPLES.config, { authorization: org.bearer });
    expect(old.statusCode).toBe(401);
    expect(old.json).toEqual({ schemas: [SCIM_ERROR], status: "401", detail: "invalid_scim_token" });
    expect(old.headers["www-authenticate"]).toBe('Bearer realm="scim"');
    expect(await storedItem(keys.scimToken(digestSecret(org.token)))).toBeUndefined();
    expect((await request("scim", SAMPLES.config, { authorization: `Bearer ${next}` })).statusCode).toBe(200);

    const removed = await request("groups", SAMPLES.disconnect, {
      params: { orgId: org.orgId },
      authorization: org.adminToken,
    });
    expect(removed.statusCode).toBe(204);
    expect((await request("scim", SAMPLES.config, { authorization: `Bearer ${next}` })).statusCode).toBe(401);
    const gone = await request("groups", SAMPLES.connection, {
      params: { orgId: org.orgId },
      authorization: org.adminToken,
    });
    expect(gone.statusCode).toBe(404);
    expect(gone.json).toMatchObject({ error: "scim_not_configured" });
  });

  it("when a member without ORG_ADMIN, or an admin of another organization, asks for a token, it is 404 as for a missing organization, and nothing is stored", async () => {
    const org = await organization();
    const other = await organization();
    const refused = await request("groups", SAMPLES.token, {
      params: { orgId: org.orgId },
      authorization: other.adminToken,
    });
    expect(refused.statusCode).toBe(404);
    expect(refused.json).toMatchObject({ error: "group_not_found" });
    expect(await storedItem(keys.scimConnection(org.orgId))).toMatchObject({ tokenDigest: digestSecret(org.token) });
  });

  it("when an application takes a token with svc_groups, it works the same", async () => {
    const org = await organization();
    const issued = await request("groups", SAMPLES.token, {
      params: { orgId: org.orgId },
      authorization: await systemBearer(["svc_groups"]),
    });
    expect(issued.statusCode).toBe(201);
    const token = (issued.json as { token: string }).token;
    expect((await request("scim", SAMPLES.config, { authorization: `Bearer ${token}` })).statusCode).toBe(200);
  });

  it("when a token is missing, forged or of another kind, every SCIM route answers 401 in SCIM's shape", async () => {
    for (const authorization of [
      null,
      "Bearer scim_forged",
      `Bearer ${await systemBearer(["svc_groups"])}`,
      "Basic YTpi",
    ]) {
      const answer = await request("scim", SAMPLES.list, { authorization });
      expect(answer.statusCode).toBe(401);
      expect(answer.headers["content-type"]).toBe("application/scim+json; charset=utf-8");
      expect((answer.json as { schemas: string[] }).schemas).toEqual([SCIM_ERROR]);
    }
  });
});

describe("discovery (RFC 7644 4)", () => {
  it("when a provider reads the server's configuration, resource types and schemas, they say what is supported", async () => {
    const org = await organization();
    const served = await scim(org, "config");
    expect(served.headers["content-type"]).toBe("application/scim+json; charset=utf-8");
    expect(served.json).toMatchObject({
      patch: { supported: true },
      bulk: { supported: false },
      filter: { supported: true, maxResults: 200 },
      etag: { supported: true },
      sort: { supported: false },
      changePassword: { supported: false },
      authenticationSchemes: [expect.objectContaining({ type: "oauthbearertoken" })],
    });
    const types = (await scim(org, "resourceTypes")).json as { Resources: Array<Record<string, unknown>> };
    expect(types.Resources.map((t) => t.endpoint)).toEqual(["/Users", "/Groups"]);
    const schemas = (await scim(org, "schemas")).json as {
      Resources: Array<{ id: string; attributes: Array<{ name: string }> }>;
    };
    expect(schemas.Resources.map((s) => s.id)).toEqual([
      "urn:ietf:params:scim:schemas:core:2.0:User",
      ENTERPRISE,
      "urn:ietf:params:scim:schemas:core:2.0:Group",
    ]);
    expect(schemas.Resources[0].attributes.map((a) => a.name)).toContain("userName");
  });
});

describe("Okta's provisioning", () => {
  it("when Okta looks a user up, creates it, reads it, updates it by PUT and deactivates it by PATCH, the account follows each step", async () => {
    const org = await organization();
    const domain = await verifiedDomain(org.orgId);
    const userName = `test.user@${domain}`;
    const lookup = () =>
      scim(org, "list", {
        query: { filter: `userName eq "${userName.toUpperCase()}"`, startIndex: "1", count: "100" },
      });
    const none = await lookup();
    expect(none.statusCode).toBe(200);
    expect(none.json).toEqual({
      schemas: ["urn:ietf:params:scim:api:messages:2.0:ListResponse"],
      totalResults: 0,
      startIndex: 1,
      itemsPerPage: 0,
      Resources: [],
    });

    const created = await scim(org, "create", { body: oktaUser(userName) });
    expect(created.statusCode).toBe(201);
    const user = created.json as ScimUser;
    expect(user).toMatchObject({
      userName,
      active: true,
      name: { givenName: "Test", familyName: "User" },
      displayName: "Test User",
      meta: { resourceType: "User", version: 'W/"1"', location: `${config().issuer}/scim/v2/Users/${user.id}` },
    });
    expect(created.headers.location).toBe(user.meta.location);
    expect(created.headers.etag).toBe('W/"1"');
    expect(created.body).not.toContain("1mz050nq");
    // The account: the address verified, since the organization verified its domain; a member.
    const account = await services().accounts.get(user.id);
    expect(account).toMatchObject({
      given_name: "Test",
      family_name: "User",
      locked: false,
      email: { value: userName, verified: true },
    });
    expect(await isMember(org.orgId, user.id)).toBe(true);
    const record = await storedItem(keys.scimRecord(org.orgId, "User", user.id));
    expect(record).toMatchObject({ entity: "scim-record", type: "User", name: userName, version: 1 });
    expect(JSON.stringify(record)).not.toContain("1mz050nq");

    const found = await lookup();
    expect((found.json as { totalResults: number }).totalResults).toBe(1);
    expect((found.json as { Resources: ScimUser[] }).Resources[0].id).toBe(user.id);
    const read = await scim(org, "get", { params: { id: user.id } });
    expect(read.statusCode).toBe(200);
    expect(read.headers.etag).toBe('W/"1"');

    const replaced = await scim(org, "replace", {
      params: { id: user.id },
      body: { ...oktaUser(userName), id: user.id, name: { givenName: "Tess", familyName: "Usher" } },
    });
    expect(replaced.statusCode, replaced.body).toBe(200);
    expect(replaced.json).toMatchObject({
      name: { givenName: "Tess", familyName: "Usher" },
      meta: { version: 'W/"2"' },
    });
    expect(await services().accounts.get(user.id)).toMatchObject({ given_name: "Tess", family_name: "Usher" });

    const personal = await userBearer(user.id, ["svc_api_uapps"]);
    const devices = () =>
      request("devices", "events/devices/list-uas.json", { params: { subjectId: user.id }, authorization: personal });
    expect((await devices()).statusCode).toBe(200);
    const off = await patch(org, user.id, [{ op: "replace", value: { active: false } }]);
    expect(off.statusCode, off.body).toBe(200);
    expect(off.json).toMatchObject({ active: false });
    expect(await services().accounts.get(user.id)).toMatchObject({ locked: true });
    expect(await services().sessions.listSessions(user.id)).toEqual([]);
    // Deprovisioned: the user's own token is refused on its very next call.
    expect((await devices()).statusCode).toBe(401);

    const on = await patch(org, user.id, [{ op: "replace", value: { active: true } }]);
    expect(on.json).toMatchObject({ active: true });
    expect(await services().accounts.get(user.id)).toMatchObject({ locked: false });

    // Each step is in the account's security events, as the provider's call (never a value).
    const trail = await services().events.list(user.id, 0, Date.now() + 1000, 20);
    const steps = trail.filter((e) => e.cId === `scim:${org.orgId}`).reverse();
    expect(steps.map((e) => e.type)).toEqual([
      "scim.user-create",
      "scim.user-change",
      "scim.user-deactivate",
      "scim.user-activate",
    ]);
    expect(steps[1]).toMatchObject({
      result: "ok",
      ua: "Okta SCIM Client 1.0.0",
      ip: "203.0.113.20",
      prms: { org: org.orgId, attrs: ["externalId", "name"] },
    });
    expect(JSON.stringify(steps)).not.toContain("Tess");
  });

  it("when Okta sends the address of a domain the organization has not verified, the account's address is kept unverified", async () => {
    const org = await organization();
    const user = await create(org, oktaUser(`${uniqueId("p")}@unverified.example`));
    expect((await services().accounts.get(user.id))?.email).toMatchObject({ verified: false });
  });
});

describe("Microsoft Entra ID's provisioning", () => {
  it("when Entra creates a user with the enterprise extension, patches it as it does and disables it with a string boolean, then deletes it, the account follows and leaves the organization", async () => {
    const org = await organization();
    const suffix = uniqueId("e").toLowerCase();
    const user = await create(org, entraUser(suffix));
    expect(user.schemas).toEqual(["urn:ietf:params:scim:schemas:core:2.0:User", ENTERPRISE]);
    expect(user[ENTERPRISE]).toEqual({ department: "Sales" });
    expect(await services().accounts.get(user.id)).toMatchObject({
      given_name: "givenName",
      family_name: "familyName",
      email: { value: `test_user_${suffix}@testuser.com`, verified: false },
    });
    const byExternalId = await scim(org, "list", {
      query: { filter: `externalId eq "0a21f0f2-8d2a-4f8e-bf98-${suffix}"` },
    });
    expect((byExternalId.json as { Resources: ScimUser[] }).Resources.map((u) => u.id)).toEqual([user.id]);
    // externalId is caseExact (RFC 7643 3.1): another case finds nothing.
    const otherCase = await scim(org, "list", {
      query: { filter: `externalId eq "0A21F0F2-8D2A-4F8E-BF98-${suffix.toUpperCase()}"` },
    });
    expect((otherCase.json as { totalResults: number }).totalResults).toBe(0);

    const changed = await patch(org, user.id, [
      { op: "Replace", path: 'emails[type eq "work"].value', value: `updated_${suffix}@testuser.com` },
      { op: "Replace", path: "name.familyName", value: "updatedFamilyName" },
      { op: "Add", path: `${ENTERPRISE}:manager`, value: { value: "manager-id" } },
    ]);
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json).toMatchObject({
      name: { familyName: "updatedFamilyName" },
      emails: [{ value: `updated_${suffix}@testuser.com`, type: "work", primary: true }],
      [ENTERPRISE]: { department: "Sales", manager: { value: "manager-id" } },
      meta: { version: 'W/"2"' },
    });
    expect(await services().accounts.get(user.id)).toMatchObject({
      family_name: "updatedFamilyName",
      email: { value: `updated_${suffix}@testuser.com` },
    });
    expect(await services().accountSearch.ownerOfContact("email", `updated_${suffix}@testuser.com`)).toBe(user.id);
    expect(await services().accountSearch.ownerOfContact("email", `test_user_${suffix}@testuser.com`)).toBeUndefined();

    const disabled = await patch(org, user.id, [{ op: "Replace", path: "active", value: "False" }]);
    expect(disabled.json).toMatchObject({ active: false });
    expect(await services().accounts.get(user.id)).toMatchObject({ locked: true });

    const removed = await scim(org, "remove", { params: { id: user.id } });
    expect(removed.statusCode).toBe(204);
    const last = (await services().events.list(user.id, 0, Date.now() + 1000, 1))[0];
    expect(last).toMatchObject({
      type: "scim.user-delete",
      cId: `scim:${org.orgId}`,
      ua: "Okta SCIM Client 1.0.0",
    });
    expect(await storedItem(keys.scimRecord(org.orgId, "User", user.id))).toBeUndefined();
    expect(await isMember(org.orgId, user.id)).toBe(false);
    expect(await services().accounts.get(user.id)).toMatchObject({ locked: true });
    const gone = await scim(org, "get", { params: { id: user.id } });
    expect(gone.statusCode).toBe(404);
    expect(gone.json).toMatchObject({ schemas: [SCIM_ERROR], status: "404" });
    // Its userName is free again for a new user.
    expect((await scim(org, "create", { body: { ...entraUser(suffix), emails: [] } })).statusCode).toBe(201);
  });

  it("when an active user is deleted, its account is locked and its sessions end at once", async () => {
    const org = await organization();
    const user = await create(org, entraUser(uniqueId("x").toLowerCase()));
    const personal = await userBearer(user.id, ["svc_api_uapps"]);
    expect((await services().sessions.listSessions(user.id)).length).toBe(1);
    expect((await scim(org, "remove", { params: { id: user.id } })).statusCode).toBe(204);
    expect(await services().sessions.listSessions(user.id)).toEqual([]);
    const refused = await request("devices", "events/devices/list-uas.json", {
      params: { subjectId: user.id },
      authorization: personal,
    });
    expect(refused.statusCode).toBe(401);
  });
});

describe("lists and filters", () => {
  it("when users are listed without a filter or with a scanned one, pages follow startIndex and count and totalResults counts every match", async () => {
    const org = await organization();
    const made: ScimUser[] = [];
    for (const family of ["Avery", "Brooks", "Carter"]) {
      made.push(
        await create(org, {
          userName: uniqueId(family),
          name: { familyName: family, givenName: "Pat" },
          title: family === "Brooks" ? "CTO" : undefined,
        }),
      );
    }
    const all = await scim(org, "list", { query: { startIndex: "2", count: "1" } });
    expect(all.json).toMatchObject({ totalResults: 3, startIndex: 2, itemsPerPage: 1 });
    const ids = [...made.map((u) => u.id)].sort();
    expect((all.json as { Resources: ScimUser[] }).Resources[0].id).toBe(ids[1]);
    const matching = await scim(org, "list", {
      query: { filter: 'name.familyName sw "b" or (title pr and not (userName co "zzz"))', attributes: "userName" },
    });
    const list = matching.json as { totalResults: number; Resources: ScimUser[] };
    expect(list.totalResults).toBe(1);
    expect(Object.keys(list.Resources[0]).sort()).toEqual(["id", "meta", "schemas", "userName"]);
    const excluded = await scim(org, "get", {
      params: { id: made[0].id },
      query: { excludedAttributes: "name,emails" },
    });
    expect(excluded.json).not.toHaveProperty("name");
  });

  it("when a filter is malformed, it is 400 invalidFilter in SCIM's shape", async () => {
    const org = await organization();
    for (const filter of ["userName eq", 'userName xx "a"', '(userName eq "a"', 'userName eq "a" trailing']) {
      const answer = await scim(org, "list", { query: { filter } });
      expect(answer.statusCode, filter).toBe(400);
      expect(answer.json).toMatchObject({ schemas: [SCIM_ERROR], status: "400", scimType: "invalidFilter" });
    }
  });

  it("when one organization's token names another organization's user, it is not found, and lists never show it", async () => {
    const acme = await organization();
    const globex = await organization();
    const theirs = await create(globex, oktaUser(`${uniqueId("g")}@globex.example`));
    expect((await scim(acme, "get", { params: { id: theirs.id } })).statusCode).toBe(404);
    expect((await patch(acme, theirs.id, [{ op: "replace", value: { active: false } }])).statusCode).toBe(404);
    expect((await scim(acme, "remove", { params: { id: theirs.id } })).statusCode).toBe(404);
    expect((await scim(acme, "list", { query: {} })).json).toMatchObject({ totalResults: 0 });
    expect(await services().accounts.get(theirs.id)).toMatchObject({ locked: false });
  });
});

describe("conflicts, versions and bad input", () => {
  it("when a userName is provisioned already (in any case) or the address is another account's, it is 409 uniqueness and no account is made", async () => {
    const org = await organization();
    const userName = `${uniqueId("dup")}@example.com`;
    await create(org, oktaUser(userName));
    const again = await scim(org, "create", { body: { ...oktaUser(userName.toUpperCase()), emails: [] } });
    expect(again.statusCode).toBe(409);
    expect(again.json).toMatchObject({ schemas: [SCIM_ERROR], status: "409", scimType: "uniqueness" });
    const someone = await seedAccount({ email: { value: `${uniqueId("taken")}@example.com`, verified: true } });
    const taken = await scim(org, "create", { body: oktaUser(someone.email?.value as string) });
    expect(taken.statusCode).toBe(409);
    expect(taken.json).toMatchObject({
      scimType: "uniqueness",
      detail: "the e-mail address belongs to another account",
    });
    expect((await scim(org, "list", { query: {} })).json).toMatchObject({ totalResults: 1 });
  });

  it("when If-Match names an older version, the change is 412 and nothing changes; the current version passes", async () => {
    const org = await organization();
    const user = await create(org, oktaUser(`${uniqueId("v")}@example.com`));
    const stale = await patch(org, user.id, [{ op: "replace", path: "title", value: "Boss" }], { "if-match": 'W/"7"' });
    expect(stale.statusCode).toBe(412);
    expect((await storedItem(keys.scimRecord(org.orgId, "User", user.id)))?.version).toBe(1);
    const fresh = await patch(org, user.id, [{ op: "replace", path: "title", value: "Boss" }], { "if-match": 'W/"1"' });
    expect(fresh.statusCode).toBe(200);
    expect(fresh.headers.etag).toBe('W/"2"');
    const removal = await scim(org, "remove", { params: { id: user.id }, headers: { "if-match": 'W/"1"' } });
    expect(removal.statusCode).toBe(412);
    expect(await services().accounts.get(user.id)).toMatchObject({ locked: false });
  });

  it("when a patch names a bad path, no target, a read-only attribute or leaves no userName, it is 400 with its scimType and nothing changes", async () => {
    const org = await organization();
    const user = await create(org, oktaUser(`${uniqueId("b")}@example.com`));
    const cases: Array<[unknown[], string]> = [
      [[{ op: "replace", path: 'emails[type eq "home"].value', value: "x@example.com" }], "noTarget"],
      [[{ op: "remove" }], "noTarget"],
      [[{ op: "replace", path: "id", value: "other" }], "mutability"],
      [[{ op: "replace", path: "emails[type eq", value: "x" }], "invalidPath"],
      [[{ op: "move", path: "title", value: "x" }], "invalidSyntax"],
      [[{ op: "remove", path: "userName" }], "invalidValue"],
      [[{ op: "replace", path: "active", value: "maybe" }], "invalidValue"],
    ];
    for (const [operations, scimType] of cases) {
      const answer = await patch(org, user.id, operations);
      expect(answer.statusCode, JSON.stringify(operations)).toBe(400);
      expect(answer.json).toMatchObject({ schemas: [SCIM_ERROR], status: "400", scimType });
    }
    expect((await storedItem(keys.scimRecord(org.orgId, "User", user.id)))?.version).toBe(1);
  });

  it("when a body is not a user, it is 400 in SCIM's shape with nothing stored", async () => {
    const org = await organization();
    for (const body of [
      { name: { givenName: "No userName" } },
      { userName: "" },
      { userName: "a", active: "yes" },
      "{not json",
      { userName: "deep", x: { "": 1 } },
    ]) {
      const answer = await scim(org, "create", { body });
      expect(answer.statusCode, JSON.stringify(body)).toBe(400);
      expect((answer.json as { schemas: string[] }).schemas).toEqual([SCIM_ERROR]);
    }
    expect((await scim(org, "list", { query: {} })).json).toMatchObject({ totalResults: 0 });
  });
});

describe("concurrency", () => {
  it("when two providers' requests create the same userName at once, one account is made and the other gets 409", async () => {
    const org = await organization();
    const userName = `${uniqueId("race")}@example.com`;
    const answers = await Promise.all([
      scim(org, "create", { body: { ...oktaUser(userName), emails: [{ value: `a.${userName}` }] } }),
      scim(org, "create", { body: { ...oktaUser(userName), emails: [{ value: `b.${userName}` }] } }),
    ]);
    expect(answers.map((a) => a.statusCode).sort()).toEqual([201, 409]);
    expect((await scim(org, "list", { query: {} })).json).toMatchObject({ totalResults: 1 });
    const loser = answers.find((a) => a.statusCode === 409);
    expect(loser?.json).toMatchObject({ scimType: "uniqueness" });
  });

  it("when two patches of one user race, both land: the record holds both changes and the version counts both", async () => {
    const org = await organization();
    const user = await create(org, oktaUser(`${uniqueId("p")}@example.com`));
    const answers = await Promise.all([
      patch(org, user.id, [{ op: "add", path: "title", value: "Engineer" }]),
      patch(org, user.id, [{ op: "add", path: "nickName", value: "Tee" }]),
    ]);
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200]);
    const stored = await storedItem(keys.scimRecord(org.orgId, "User", user.id));
    expect(stored).toMatchObject({ version: 3, attributes: { title: "Engineer", nickName: "Tee" } });
  });
});

interface ScimGroup {
  id: string;
  displayName: string;
  members: Array<{ value: string; $ref?: string; display?: string }>;
  meta: { version: string };
}

async function createGroup(org: Org, body: Record<string, unknown>) {
  const created = await scim(org, "groupCreate", { body });
  expect(created.statusCode, created.body).toBe(201);
  return created.json as unknown as ScimGroup;
}

const patchGroup = (org: Org, id: string, operations: unknown[]) =>
  scim(org, "groupPatch", { params: { id }, body: { schemas: [PATCH_OP], Operations: operations } });

const membersOf = async (org: Org, id: string) =>
  ((await scim(org, "groupGet", { params: { id }, query: {} })).json as unknown as ScimGroup).members
    .map((m) => m.value)
    .sort();

describe("groups", () => {
  it("when Okta pushes a group, renames it and changes its members as it does, the group follows and lists find it by name", async () => {
    const org = await organization();
    const [ann, bob] = [
      await create(org, oktaUser(`${uniqueId("ann")}@example.com`)),
      await create(org, oktaUser(`${uniqueId("bob")}@example.com`)),
    ];
    const name = uniqueId("Engineers");
    const group = await createGroup(org, {
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"],
      displayName: name,
      members: [{ value: ann.id, display: ann.userName }],
    });
    expect(group).toMatchObject({
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"],
      displayName: name,
      members: [{ value: ann.id, display: ann.userName, $ref: `${config().issuer}/scim/v2/Users/${ann.id}` }],
      meta: { resourceType: "Group", version: 'W/"1"' },
    });
    expect(await storedItem(keys.scimRecord(org.orgId, "Group", group.id))).toMatchObject({
      type: "Group",
      name,
      version: 1,
    });

    const byName = await scim(org, "groupList", {
      query: { filter: `displayName eq "${name.toLowerCase()}"`, excludedAttributes: "members" },
    });
    const list = byName.json as { totalResults: number; Resources: Array<Record<string, unknown>> };
    expect(list.totalResults).toBe(1);
    expect(list.Resources[0]).not.toHaveProperty("members");

    // Okta's PATCH: a replace naming the group's own id, then members added and removed by filter.
    const renamed = await patchGroup(org, group.id, [
      { op: "replace", value: { id: group.id, displayName: `${name} 2` } },
    ]);
    expect(renamed.json).toMatchObject({ displayName: `${name} 2` });
    await patchGroup(org, group.id, [
      { op: "add", path: "members", value: [{ value: bob.id, display: bob.userName }] },
    ]);
    expect(await membersOf(org, group.id)).toEqual([ann.id, bob.id].sort());
    await patchGroup(org, group.id, [{ op: "remove", path: `members[value eq "${ann.id}"]` }]);
    expect(await membersOf(org, group.id)).toEqual([bob.id]);
    // The old name is free again.
    expect((await createGroup(org, { displayName: name })).displayName).toBe(name);
  });

  it("when Entra creates a group, adds and removes members by value and replaces it by PUT, then deletes it, the group follows and its users stay", async () => {
    const org = await organization();
    const users = [];
    for (const tag of ["a", "b", "c"]) users.push(await create(org, entraUser(uniqueId(tag).toLowerCase())));
    const group = await createGroup(org, {
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"],
      externalId: uniqueId("8aa1a0c0"),
      displayName: uniqueId("displayName"),
      meta: { resourceType: "Group" },
      members: [],
    });
    expect(group.members).toEqual([]);
    const added = await patchGroup(org, group.id, [
      { op: "Add", path: "members", value: users.map((u) => ({ value: u.id })) },
    ]);
    expect(added.statusCode, added.body).toBe(200);
    expect(await membersOf(org, group.id)).toEqual(users.map((u) => u.id).sort());
    await patchGroup(org, group.id, [{ op: "Remove", path: "members", value: [{ value: users[0].id }] }]);
    expect(await membersOf(org, group.id)).toEqual([users[1].id, users[2].id].sort());
    const replaced = await scim(org, "groupReplace", {
      params: { id: group.id },
      body: { displayName: group.displayName, members: [{ value: users[0].id }] },
    });
    expect(replaced.statusCode, replaced.body).toBe(200);
    expect(await membersOf(org, group.id)).toEqual([users[0].id]);
    expect((await scim(org, "groupRemove", { params: { id: group.id } })).statusCode).toBe(204);
    expect((await scim(org, "groupGet", { params: { id: group.id }, query: {} })).statusCode).toBe(404);
    expect(await storedItem(keys.scimRecord(org.orgId, "Group", group.id))).toBeUndefined();
    expect((await scim(org, "get", { params: { id: users[0].id } })).statusCode).toBe(200);
  });

  it("when a member is not a user provisioned in this organization, or the name is taken, the group is refused and nothing is stored", async () => {
    const org = await organization();
    const other = await organization();
    const theirs = await create(other, oktaUser(`${uniqueId("t")}@example.com`));
    const foreign = await scim(org, "groupCreate", {
      body: { displayName: uniqueId("G"), members: [{ value: theirs.id }] },
    });
    expect(foreign.statusCode).toBe(400);
    expect(foreign.json).toMatchObject({
      scimType: "invalidValue",
      detail: `members that are not provisioned users: ${theirs.id}`,
    });
    const name = uniqueId("Team");
    const group = await createGroup(org, { displayName: name });
    const twin = await scim(org, "groupCreate", { body: { displayName: name.toUpperCase() } });
    expect(twin.statusCode).toBe(409);
    expect(twin.json).toMatchObject({ scimType: "uniqueness" });
    const sneaked = await patchGroup(org, group.id, [{ op: "add", path: "members", value: [{ value: theirs.id }] }]);
    expect(sneaked.statusCode).toBe(400);
    expect((await scim(org, "groupList", { query: {} })).json).toMatchObject({ totalResults: 1 });
  });

  it("when two member changes of one group race, neither is lost", async () => {
    const org = await organization();
    const [ann, bob] = [
      await create(org, oktaUser(`${uniqueId("ra")}@example.com`)),
      await create(org, oktaUser(`${uniqueId("rb")}@example.com`)),
    ];
    const group = await createGroup(org, { displayName: uniqueId("Race") });
    const answers = await Promise.all([
      patchGroup(org, group.id, [{ op: "add", path: "members", value: [{ value: ann.id }] }]),
      patchGroup(org, group.id, [{ op: "add", path: "members", value: [{ value: bob.id }] }]),
    ]);
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200]);
    expect(await membersOf(org, group.id)).toEqual([ann.id, bob.id].sort());
  });

  it("when a user is deprovisioned by DELETE, it leaves every group it was in", async () => {
    const org = await organization();
    const [ann, bob] = [
      await create(org, oktaUser(`${uniqueId("la")}@example.com`)),
      await create(org, oktaUser(`${uniqueId("lb")}@example.com`)),
    ];
    const both = await createGroup(org, {
      displayName: uniqueId("Both"),
      members: [{ value: ann.id }, { value: bob.id }],
    });
    const annOnly = await createGroup(org, { displayName: uniqueId("Ann"), members: [{ value: ann.id }] });
    expect((await scim(org, "remove", { params: { id: ann.id } })).statusCode).toBe(204);
    expect(await membersOf(org, both.id)).toEqual([bob.id]);
    expect(await membersOf(org, annOnly.id)).toEqual([]);
  });
});

describe("what provisioning owns", () => {
  it("when an application or the user changes a provisioned account's names, address or lock through the other routes, it is 409 provisioned_account and nothing changes; a phone and a lock go through", async () => {
    const org = await organization();
    const user = await create(org, oktaUser(`${uniqueId("own")}@example.com`));
    const change = async (body: Record<string, unknown>, authorization?: string) =>
      request("users", "events/users/change-user-system.json", {
        params: { subjectId: instanceIdOf(user.id) },
        body,
        ...(authorization && { authorization }),
      });
    for (const body of [
      { given_name: "Mallory" },
      { family_name: null },
      { email: { value: `${uniqueId("swap")}@example.com`, vrf: true } },
      { email: { value: `${uniqueId("code")}@example.com`, vrf: false } },
    ]) {
      const refused = await change(body);
      expect(refused.statusCode, `${JSON.stringify(body)} ${refused.body}`).toBe(409);
      expect(refused.json).toMatchObject({ error: "provisioned_account", params: { orgId: org.orgId } });
    }
    const own = await request("users", "events/users/change-user-user-mode.json", {
      params: { subjectId: instanceIdOf(user.id) },
      authorization: await userBearer(user.id, ["svc_api_user_chg"]),
    });
    expect(own.statusCode).toBe(409);
    const account = await services().accounts.get(user.id);
    expect(account).toMatchObject({
      given_name: "Test",
      family_name: "User",
      email: { value: user.userName },
      scimOrg: org.orgId,
    });
    expect(account?.pending_email).toBeUndefined();

    expect((await change({ phone_number: { value: "79991234567", vrf: true } })).statusCode).toBe(200);
    expect((await change({ locked: true })).statusCode).toBe(200);
    const unlock = await change({ locked: false });
    expect(unlock.statusCode, unlock.body).toBe(409);
    expect(await services().accounts.get(user.id)).toMatchObject({
      locked: true,
      phone_number: { value: "79991234567" },
    });
    // The provisioning itself still changes them.
    const renamed = await patch(org, user.id, [{ op: "replace", path: "name.givenName", value: "Tessa" }]);
    expect(renamed.statusCode).toBe(200);
    expect(await services().accounts.get(user.id)).toMatchObject({ given_name: "Tessa" });
  });
});

describe("people who had an account before provisioning", () => {
  it("when the provider creates someone whose verified address in the organization's verified domain is an account already, that account becomes the provisioned user and joins", async () => {
    const org = await organization();
    const domain = await verifiedDomain(org.orgId);
    const existing = await seedAccount({ email: { value: `old.timer@${domain}`, verified: true } });
    const user = await create(org, {
      ...oktaUser(`old.timer@${domain}`),
      name: { givenName: "Olga", familyName: "Timer" },
    });
    expect(user.id).toBe(existing.sub);
    expect(await services().accounts.get(existing.sub)).toMatchObject({
      scimOrg: org.orgId,
      given_name: "Olga",
      family_name: "Timer",
      email: { value: `old.timer@${domain}`, verified: true },
    });
    expect(await isMember(org.orgId, existing.sub)).toBe(true);
    const trail = await services().events.list(existing.sub, 0, Date.now() + 1000, 5);
    expect(trail.map((e) => e.type)).toContain("scim.user-adopt");
    // Provisioned now: the users API no longer renames it.
    const renamed = await request("users", "events/users/change-user-system.json", {
      params: { subjectId: instanceIdOf(existing.sub) },
      body: { given_name: "Mallory" },
    });
    expect(renamed.statusCode).toBe(409);
  });

  it("when the address is unverified on its account, outside the organization's verified domains, or provisioned by another organization, it is 409 and the account is left alone", async () => {
    const org = await organization();
    const domain = await verifiedDomain(org.orgId);
    const unverified = await seedAccount({ email: { value: `shy@${domain}`, verified: false } });
    expect((await scim(org, "create", { body: oktaUser(`shy@${domain}`) })).statusCode).toBe(409);
    expect((await services().accounts.get(unverified.sub))?.scimOrg).toBeUndefined();
    const outside = await seedAccount({ email: { value: `${uniqueId("out")}@elsewhere.example`, verified: true } });
    expect((await scim(org, "create", { body: oktaUser(outside.email?.value as string) })).statusCode).toBe(409);
    const other = await organization();
    const theirs = await create(other, oktaUser(`${uniqueId("theirs")}@${await verifiedDomain(other.orgId)}`));
    // The same address can only be in one organization's verified domain: another organization's
    // provisioned account is never taken over, even through a userName of its own.
    expect(
      (
        await scim(org, "create", {
          body: { ...oktaUser(`${uniqueId("u")}@${domain}`), emails: [{ value: theirs.userName, primary: true }] },
        })
      ).statusCode,
    ).toBe(409);
    expect((await services().accounts.get(theirs.id))?.scimOrg).toBe(other.orgId);
    expect((await scim(org, "list", { query: {} })).json).toMatchObject({ totalResults: 0 });
  });
});

describe("changes refused on the account's side", () => {
  it("when a PUT moves a user to an address another account holds, it is 409 uniqueness and neither the record nor the account changes", async () => {
    const org = await organization();
    const user = await create(org, oktaUser(`${uniqueId("mover")}@example.com`));
    const someone = await seedAccount({ email: { value: `${uniqueId("holder")}@example.com`, verified: true } });
    const moved = await scim(org, "replace", {
      params: { id: user.id },
      body: {
        ...oktaUser(user.userName),
        emails: [{ value: someone.email?.value, primary: true }],
        name: { givenName: "Moved" },
      },
    });
    expect(moved.statusCode, moved.body).toBe(409);
    expect(moved.json).toMatchObject({
      scimType: "uniqueness",
      detail: "the e-mail address belongs to another account",
    });
    expect(await storedItem(keys.scimRecord(org.orgId, "User", user.id))).toMatchObject({ version: 1 });
    expect(await services().accounts.get(user.id)).toMatchObject({
      given_name: "Test",
      email: { value: user.userName },
    });
    expect(await services().accountSearch.ownerOfContact("email", someone.email?.value as string)).toBe(someone.sub);
  });

  it("when a PATCH renames a user to a userName another user holds, it is 409 and the account is brought back in line", async () => {
    const org = await organization();
    const first = await create(org, oktaUser(`${uniqueId("first")}@example.com`));
    const second = await create(org, oktaUser(`${uniqueId("second")}@example.com`));
    const clash = await patch(org, second.id, [
      { op: "replace", path: "userName", value: first.userName.toUpperCase() },
      { op: "replace", path: "name.givenName", value: "Clash" },
    ]);
    expect(clash.statusCode, clash.body).toBe(409);
    expect(clash.json).toMatchObject({ scimType: "uniqueness" });
    expect(await storedItem(keys.scimRecord(org.orgId, "User", second.id))).toMatchObject({
      name: second.userName,
      version: 1,
    });
    expect(await services().accounts.get(second.id)).toMatchObject({ given_name: "Test" });
  });
});
