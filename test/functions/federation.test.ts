import { createHash } from "node:crypto";
import { GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { config } from "../../lib/config";
import { loginDeps, services } from "../../lib/container";
import { dataKeys } from "../../lib/crypto/data-key";
import { documentClient } from "../../lib/document-client";
import { registerClient } from "../../lib/domain/clients/admin";
import { sealProviderTokens } from "../../lib/domain/federation/token-sealing";
import { browserCookieValue, HOSTED_CLIENT } from "../../lib/domain/oidc/browser-session";
import { recordLogin } from "../../lib/domain/sign-in/login-commit";
import { roundTripCount } from "../../lib/store/client";
import { ENTITY, itemOf, keys } from "../../lib/store/keys";
import {
  createClient,
  invoke,
  sampleEvent,
  seedAccount,
  systemBearer,
  uniqueId,
  userBearer,
} from "../support/fixtures";
import { providerEntry, startTestProvider, type TestProvider, useSettings } from "../support/oauth-provider";
import { basicAuthorization, basicCredentials } from "../support/requests";

let provider: TestProvider;

beforeAll(async () => {
  provider = await startTestProvider();
  useSettings({
    federation: {
      providers: [
        providerEntry(provider.url),
        // A plain OAuth 2.0 provider: no userinfo, tokens not remembered.
        providerEntry(provider.url, { type: "oauth", name: "plain", rememberTokens: false, userinfoUrl: undefined }),
      ],
    },
  });
});
afterAll(() => provider.stop());

interface Change {
  params?: Record<string, string>;
  authorization?: string | null;
  body?: unknown;
  contentType?: string;
  query?: Record<string, string>;
  values?: Record<string, string>;
}

async function federationCall(sample: string, change: Change = {}) {
  // Tests set their own Authorization; the sample's placeholder needs some value.
  const event = await sampleEvent(`events/federation/${sample}.json`, change.values ?? { clientBasic: "unused" });
  if (change.params) event.pathParameters = change.params;
  if (change.authorization === null) delete event.headers.authorization;
  else if (change.authorization) event.headers.authorization = change.authorization;
  if (change.body !== undefined) {
    event.body = typeof change.body === "string" ? change.body : JSON.stringify(change.body);
    event.headers["content-type"] = change.contentType ?? "application/json";
  }
  if (change.query) event.queryStringParameters = change.query;
  return invoke("federation", event);
}

/** A v2 error body (interface §7.1) with one error. */
const v2Error = (code: string, desc: string, field?: string) => ({
  errors: [{ code, desc, params: field === undefined ? {} : { field } }],
});

const bearer = (scope: string, clientId?: string) => systemBearer([scope], clientId);
const linkParams = (sub: string, sid: string, fpType = "oidc", fpName = "mock") => ({
  subjectId: sub,
  fpType,
  fpName,
  sid,
});

async function link(sub: string, sid: string, body: unknown = "", authorization?: string) {
  return federationCall("link-system", {
    params: linkParams(sub, sid),
    body,
    authorization: authorization ?? (await bearer("svc_api_sys_ufa_chg")),
  });
}

async function listLinks(sub: string, authorization?: string) {
  return federationCall("list-links-system", {
    params: { subjectId: sub },
    authorization: authorization ?? (await bearer("svc_api_sys_ufa")),
  });
}

async function claimOwner(sid: string, fpType = "oidc", fpName = "mock") {
  const { Item } = await documentClient().send(
    new GetCommand({ TableName: config().tableName, Key: keys.uniqueFederatedAccount(fpType, fpName, sid) }),
  );
  return Item?.owner;
}

/** A link to oidc:mock with the provider's tokens stored, as a bind with rememberTokens leaves it. */
async function remember(
  sub: string,
  sid: string,
  tokens: { accessToken: string; refreshToken?: string; expiresIn: number },
) {
  const key = await dataKeys().key("federated-tokens");
  const owner = { sub, fpType: "oidc", fpName: "mock", sid };
  const now = Math.floor(Date.now() / 1000);
  await services().federation.link({ ...owner, tokens: sealProviderTokens(key, owner, tokens, now) }, now);
}

async function storedTokenItem(sub: string, sid: string) {
  const { Item } = await documentClient().send(
    new GetCommand({ TableName: config().tableName, Key: keys.federatedToken(sub, "oidc", "mock", sid) }),
  );
  return Item;
}

describe("GET /svc/api/v3/users/{subjectId}/fa", () => {
  it("when the account has links, it lists sid, fpType, fpName and userName", async () => {
    const account = await seedAccount();
    await link(account.sub, "ext-1", { federatedAccountName: "Ivan at the provider" });
    await link(account.sub, "ext-2");
    const response = await listLinks(account.sub);
    expect(response.statusCode).toBe(200);
    expect(response.json).toEqual([
      { sid: "ext-1", fpType: "oidc", fpName: "mock", userName: "Ivan at the provider" },
      { sid: "ext-2", fpType: "oidc", fpName: "mock" },
    ]);
  });

  it("when the account has no links, it answers an empty list", async () => {
    const account = await seedAccount();
    const response = await listLinks(account.sub);
    expect(response.statusCode).toBe(200);
    expect(response.json).toEqual([]);
  });

  it("when the account does not exist, it answers 404 unknown_user", async () => {
    const response = await listLinks("nobody-here");
    expect(response.statusCode).toBe(404);
    expect(response.json).toEqual({
      type: "process_error",
      error: "unknown_user",
      desc: "no account has this identifier",
      params: { userId: "nobody-here" },
    });
  });

  it("when a user token with svc_api_ufa reads its own links, it answers; another account's, 401", async () => {
    const mine = await seedAccount();
    const theirs = await seedAccount();
    const token = await userBearer(mine.sub, ["svc_api_ufa"]);
    expect((await listLinks(mine.sub, token)).statusCode).toBe(200);
    const other = await listLinks(theirs.sub, token);
    expect(other.statusCode).toBe(401);
    expect(other.json).toEqual({ type: "security_error", error: "bad_access_token", desc: "wrong_subject" });
  });

  it("when the token holds only the change permission, it answers 401 insufficient_scope", async () => {
    const account = await seedAccount();
    const response = await listLinks(account.sub, await bearer("svc_api_sys_ufa_chg"));
    expect(response.statusCode).toBe(401);
    expect(response.json.desc).toBe("insufficient_scope");
  });
});

describe("POST /svc/api/v3/users/{subjectId}/fa/{fpType}/{fpName}/{sid}", () => {
  it("when linking, it answers 204 and stores the link with its uniqueness claim", async () => {
    const account = await seedAccount();
    const response = await link(account.sub, "ext-a", { federatedAccountName: "a@provider" });
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe("");
    expect(await services().federation.listLinks(account.sub)).toEqual([
      { sid: "ext-a", fpType: "oidc", fpName: "mock", userName: "a@provider" },
    ]);
    expect(await claimOwner("ext-a")).toBe(account.sub);
  });

  it("when linked again without a name, it keeps the stored name; with a name, it replaces it", async () => {
    const account = await seedAccount();
    await link(account.sub, "ext-b", { federatedAccountName: "first name" });
    expect((await link(account.sub, "ext-b")).statusCode).toBe(204);
    expect((await services().federation.listLinks(account.sub))[0].userName).toBe("first name");
    expect((await link(account.sub, "ext-b", {})).statusCode).toBe(204);
    expect((await services().federation.listLinks(account.sub))[0].userName).toBe("first name");
    await link(account.sub, "ext-b", { federatedAccountName: "second name" });
    expect((await services().federation.listLinks(account.sub))[0].userName).toBe("second name");
  });

  it("when the external account is linked to another account, it answers 409 and links nothing", async () => {
    const first = await seedAccount();
    const second = await seedAccount();
    await link(first.sub, "ext-taken");
    const response = await link(second.sub, "ext-taken");
    expect(response.statusCode).toBe(409);
    expect(response.json).toEqual({
      type: "process_error",
      error: "already_linked",
      desc: "this external account is linked to another account",
    });
    expect(await services().federation.listLinks(second.sub)).toEqual([]);
    expect(await claimOwner("ext-taken")).toBe(first.sub);
  });

  it("when the two accounts link the same external account at once, exactly one wins", async () => {
    const accounts = await Promise.all([seedAccount(), seedAccount(), seedAccount()]);
    const token = await bearer("svc_api_sys_ufa_chg");
    const answers = await Promise.all(accounts.map((a) => link(a.sub, "ext-race", "", token)));
    expect(answers.map((a) => a.statusCode).sort()).toEqual([204, 409, 409]);
    const winner = accounts[answers.findIndex((a) => a.statusCode === 204)];
    expect(await claimOwner("ext-race")).toBe(winner.sub);
  });

  it("when the provider is not configured, it answers 400 unknown_provider and stores nothing", async () => {
    const account = await seedAccount();
    const response = await federationCall("link-unknown-provider", {
      params: linkParams(account.sub, "ext-x", "oidc", "nowhere"),
    });
    expect(response.statusCode).toBe(400);
    expect(response.json).toEqual({
      type: "process_error",
      error: "unknown_provider",
      desc: "no external provider of this type and name is configured",
      params: { fpType: "oidc", fpName: "nowhere" },
    });
    expect(await claimOwner("ext-x", "oidc", "nowhere")).toBeUndefined();
  });

  it("when the account does not exist, it answers 404 unknown_user and takes no claim", async () => {
    const response = await link("nobody-there", "ext-orphan");
    expect(response.statusCode).toBe(404);
    expect(response.json.error).toBe("unknown_user");
    expect(await claimOwner("ext-orphan")).toBeUndefined();
  });

  it.each([
    ["a provider type with an underscore", { fpType: "oidc_x" }, "fpType"],
    ["an external id with a control character", { sid: "bad\u0001id" }, "sid"],
    ["a malformed subject id", { subjectId: "bad#sub" }, "subjectId"],
  ])("when the path has %s, it answers 400 naming the field", async (_, change, pos) => {
    const params = { ...linkParams("someone", "ext-1"), ...change };
    const response = await federationCall("link-system", { params });
    expect(response.statusCode).toBe(400);
    expect(response.json).toMatchObject({ type: "input_error", error: "wrong_values" });
    expect((response.json.errors as Array<{ pos: string }>).map((e) => e.pos)).toEqual([pos]);
  });

  it.each([
    ["an unknown field", { federatedAccountName: "x", extra: 1 }, "wrong_values"],
    ["a name that is not a string", { federatedAccountName: 42 }, "wrong_values"],
    ["a body that is not JSON", "{not json", "malformed_body"],
  ])("when the body has %s, it answers 400 %s and stores nothing", async (_, body, error) => {
    const account = await seedAccount();
    const response = await link(account.sub, "ext-bad-body", body);
    expect(response.statusCode).toBe(400);
    expect(response.json).toMatchObject({ type: "input_error", error });
    expect(await services().federation.listLinks(account.sub)).toEqual([]);
  });

  it("when a user token with svc_api_ufa_chg links its own account, it answers 204; svc_api_ufa is not enough", async () => {
    const account = await seedAccount();
    const change = await userBearer(account.sub, ["svc_api_ufa_chg"]);
    expect((await link(account.sub, "ext-user", "", change)).statusCode).toBe(204);
    const readOnly = await userBearer(account.sub, ["svc_api_ufa"]);
    const refused = await link(account.sub, "ext-user-2", "", readOnly);
    expect(refused.statusCode).toBe(401);
    expect(refused.json.desc).toBe("insufficient_scope");
  });
});

describe("DELETE .../fa/{fpType}/{fpName}/{sid} (v3 and v2)", () => {
  async function unlinkV3(sub: string, sid: string, authorization?: string) {
    return federationCall("unlink-system", {
      params: linkParams(sub, sid),
      authorization: authorization ?? (await bearer("svc_api_sys_ufa_chg")),
    });
  }

  it("when the link exists, v3 removes it, its claim and its stored tokens; a second call answers 404", async () => {
    const account = await seedAccount();
    await remember(account.sub, "ext-del", { accessToken: "at", expiresIn: 600 });
    const response = await unlinkV3(account.sub, "ext-del");
    expect(response.statusCode).toBe(204);
    expect(await services().federation.listLinks(account.sub)).toEqual([]);
    expect(await claimOwner("ext-del")).toBeUndefined();
    expect(await storedTokenItem(account.sub, "ext-del")).toBeUndefined();
    const again = await unlinkV3(account.sub, "ext-del");
    expect(again.statusCode).toBe(404);
    expect(again.json).toEqual({
      type: "process_error",
      error: "unknown_link",
      desc: "the account has no link to this external account",
    });
  });

  it("when unlinked, another account may link the same external account", async () => {
    const first = await seedAccount();
    const second = await seedAccount();
    await link(first.sub, "ext-moves");
    await unlinkV3(first.sub, "ext-moves");
    expect((await link(second.sub, "ext-moves")).statusCode).toBe(204);
    expect(await claimOwner("ext-moves")).toBe(second.sub);
  });

  it("when v2 is called with the application's REST password, it unlinks; errors come in the v2 shape", async () => {
    const account = await seedAccount();
    const rest = "rest-password-of-the-application-fa01";
    const app = await createClient(["svc_api_sys_ufa_chg"], { restPassword: rest });
    await link(account.sub, "ext-v2");
    const authorization = basicAuthorization(app.clientId, rest);
    const call = () =>
      federationCall("unlink-v2-rest-password", { params: linkParams(account.sub, "ext-v2"), authorization });
    expect((await call()).statusCode).toBe(204);
    expect(await services().federation.listLinks(account.sub)).toEqual([]);
    const again = await call();
    expect(again.statusCode).toBe(404);
    expect(again.json).toEqual(v2Error("unknown_link", "the account has no link to this external account"));
  });

  it("when v2 gets a bad path or a wrong password, it answers in the v2 shape", async () => {
    const bad = await federationCall("unlink-v2-rest-password", {
      params: linkParams("someone", "ext", "bad_type"),
      authorization: await bearer("svc_api_sys_ufa_chg"),
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json).toEqual(
      v2Error("validation_error", 'fpType: fpType must match pattern "^[A-Za-z0-9-]{1,64}$"', "fpType"),
    );
    const refused = await federationCall("unlink-v2-rest-password", {
      params: linkParams("someone", "ext"),
      authorization: basicAuthorization("no-such-app", "x"),
    });
    expect(refused.statusCode).toBe(401);
    expect(refused.json).toEqual(v2Error("access_denied", "invalid_rest_password"));
  });

  it("when a user token unlinks another account's link, it answers 401 and the link stays", async () => {
    const mine = await seedAccount();
    const theirs = await seedAccount();
    await link(theirs.sub, "ext-theirs");
    const response = await unlinkV3(theirs.sub, "ext-theirs", await userBearer(mine.sub, ["svc_api_ufa_chg"]));
    expect(response.statusCode).toBe(401);
    expect(await claimOwner("ext-theirs")).toBe(theirs.sub);
  });
});

describe("GET /svc/api/v3/users/{subjectId}/fedToken/{fedPointType}/{fedPointName}", () => {
  let caller: { clientId: string };

  beforeAll(async () => {
    caller = await createClient(["fed_tkn_any", "fed_tkn_oidc_mock", "fed_tkn_oauth_plain", "fed_tkn_oidc_other"]);
  });

  async function fedToken(
    sub: string,
    { scope = "fed_tkn_any", fpType = "oidc", fpName = "mock", clientId = caller.clientId } = {},
  ) {
    return federationCall("fed-token-system", {
      params: { subjectId: sub, fedPointType: fpType, fedPointName: fpName },
      authorization: await bearer(scope, clientId),
    });
  }

  it("when a stored token lasts long enough, it returns it by external account id without calling the provider", async () => {
    const account = await seedAccount();
    await remember(account.sub, "ext-valid", { accessToken: "provider-access-1", refreshToken: "r1", expiresIn: 3600 });
    const before = provider.tokenRequests.length;
    const response = await fedToken(account.sub);
    expect(response.statusCode).toBe(200);
    expect(response.headers["cache-control"]).toBe("no-store");
    const expiresOn = (response.json["ext-valid"] as { expiresOn: number }).expiresOn;
    expect(response.json).toEqual({ "ext-valid": { expiresOn, token: "provider-access-1" } });
    expect(expiresOn).toBeGreaterThan(Math.floor(Date.now() / 1000) + 3500);
    expect(provider.tokenRequests.length).toBe(before);
  });

  it("when stored, the tokens are sealed at rest: the item holds neither token in clear", async () => {
    const account = await seedAccount();
    await remember(account.sub, "ext-sealed", {
      accessToken: "clear-access-token",
      refreshToken: "clear-refresh-token",
      expiresIn: 3600,
    });
    const item = await storedTokenItem(account.sub, "ext-sealed");
    expect(JSON.stringify(item)).not.toContain("clear-access-token");
    expect(JSON.stringify(item)).not.toContain("clear-refresh-token");
    expect(item?.accessToken).toMatch(/^v1\./);
    expect(item?.refreshToken).toMatch(/^v1\./);
    // A sealed value moved to another account's item does not open there.
    const other = await seedAccount();
    await remember(other.sub, "ext-sealed-2", { accessToken: "other", expiresIn: 3600 });
    await documentClient().send(
      new PutCommand({
        TableName: config().tableName,
        Item: { ...(await storedTokenItem(other.sub, "ext-sealed-2")), accessToken: item?.accessToken },
      }),
    );
    const moved = await fedToken(other.sub);
    expect(moved.statusCode).toBe(500);
    expect(moved.body).not.toContain("clear-access-token");
  });

  it("when the token has less than the minimum lifetime left, it is refreshed at the provider, stored and returned", async () => {
    const account = await seedAccount();
    await remember(account.sub, "ext-expiring", {
      accessToken: "old-access",
      refreshToken: "old-refresh",
      expiresIn: 20,
    });
    const before = provider.refreshRequests();
    const response = await fedToken(account.sub, { scope: "fed_tkn_oidc_mock" });
    expect(response.statusCode).toBe(200);
    expect(provider.refreshRequests() - before).toBe(1);
    const refreshRequest = provider.tokenRequests.at(-1);
    expect(refreshRequest).toMatchObject({ grant_type: "refresh_token", refresh_token: "old-refresh" });
    const issued = provider.issued.at(-1);
    const answered = response.json["ext-expiring"] as { token: string; expiresOn: number };
    expect(answered.token).toBe(issued?.access_token);
    expect(answered.token).not.toBe("old-access");
    // Stored: the next call returns it without another refresh, and the new refresh token is kept.
    const again = await fedToken(account.sub);
    expect((again.json["ext-expiring"] as { token: string }).token).toBe(issued?.access_token);
    expect(provider.refreshRequests() - before).toBe(1);
    const stored = await services().federation.tokensOf({
      sub: account.sub,
      fpType: "oidc",
      fpName: "mock",
      sid: "ext-expiring",
    });
    expect(stored?.leaseUntil).toBeUndefined();
  });

  it("when many calls find the token expiring at once, the provider sees exactly one refresh and all get its token", async () => {
    const account = await seedAccount();
    await remember(account.sub, "ext-refresh-race", { accessToken: "old", refreshToken: "race-refresh", expiresIn: 5 });
    const before = provider.refreshRequests();
    const answers = await Promise.all(Array.from({ length: 8 }, () => fedToken(account.sub)));
    expect(answers.map((a) => a.statusCode)).toEqual(Array(8).fill(200));
    expect(provider.refreshRequests() - before).toBe(1);
    const tokens = new Set(answers.map((a) => (a.json["ext-refresh-race"] as { token: string }).token));
    expect([...tokens]).toEqual([provider.issued.at(-1)?.access_token]);
  });

  it.each([
    ["refuses it (invalid_grant)", 400, { error: "invalid_grant" }, 404],
    ["cannot answer (503)", 503, { error: "temporarily_unavailable" }, 502],
  ])(
    "when many calls find the token expiring and the provider %s, it is asked once and every call answers %s",
    async (_, status, body, expected) => {
      const account = await seedAccount();
      await remember(account.sub, uniqueId("ext-race-fail-"), { accessToken: "old", refreshToken: "r", expiresIn: 5 });
      // Held for a second, so every call has read the expiring token before the holder gives up.
      provider.nextTokenAnswer((answer) => {
        answer.statusCode = status;
        answer.body = body;
      }, 1000);
      const before = provider.refreshRequests();
      const answers = await Promise.all(Array.from({ length: 5 }, () => fedToken(account.sub)));
      expect(answers.map((a) => a.statusCode)).toEqual(Array(5).fill(expected));
      expect(provider.refreshRequests() - before).toBe(1);
    },
  );

  it("when the provider refuses the refresh (invalid_grant), the stored tokens are dropped and it answers 404", async () => {
    const account = await seedAccount();
    await remember(account.sub, "ext-revoked", { accessToken: "old", refreshToken: "revoked", expiresIn: 5 });
    provider.nextTokenAnswer((answer) => {
      answer.statusCode = 400;
      answer.body = { error: "invalid_grant", error_description: "refresh token revoked" };
    });
    const response = await fedToken(account.sub);
    expect(response.statusCode).toBe(404);
    expect(response.json).toEqual({
      type: "process_error",
      error: "no_token",
      desc: "no valid stored token of this provider for the account",
    });
    expect(await storedTokenItem(account.sub, "ext-revoked")).toBeUndefined();
    // The link itself stays: only the useless tokens go.
    expect(await services().federation.listLinks(account.sub)).toHaveLength(1);
  });

  it("when the provider cannot refresh now, it answers 502, keeps the tokens, and a later call refreshes", async () => {
    const account = await seedAccount();
    await remember(account.sub, "ext-down", { accessToken: "old", refreshToken: "still-good", expiresIn: 5 });
    provider.nextTokenAnswer((answer) => {
      answer.statusCode = 503;
      answer.body = { error: "temporarily_unavailable" };
    });
    const response = await fedToken(account.sub);
    expect(response.statusCode).toBe(502);
    expect(response.json).toEqual({
      type: "process_error",
      error: "provider_unavailable",
      desc: "the provider could not refresh the token; try again later",
      params: { requestId: expect.any(String) },
    });
    const kept = await storedTokenItem(account.sub, "ext-down");
    expect(kept?.leaseId).toBeUndefined();
    const later = await fedToken(account.sub);
    expect(later.statusCode).toBe(200);
    expect((later.json["ext-down"] as { token: string }).token).toBe(provider.issued.at(-1)?.access_token);
  });

  it("when the token expires soon and there is no refresh token, it answers 404", async () => {
    const account = await seedAccount();
    await remember(account.sub, "ext-no-refresh", { accessToken: "old", expiresIn: 5 });
    expect((await fedToken(account.sub)).statusCode).toBe(404);
  });

  it("when nothing is stored, it answers 404 no_token", async () => {
    const account = await seedAccount();
    const response = await fedToken(account.sub);
    expect(response.statusCode).toBe(404);
    expect(response.json.error).toBe("no_token");
  });

  it.each([
    ["the token's permission names another provider", { scope: "fed_tkn_oidc_other" }, "insufficient_scope"],
    ["the provider is unknown", { fpName: "nowhere", scope: "fed_tkn_any" }, "unknown_provider"],
    [
      "the provider does not remember tokens",
      { fpType: "oauth", fpName: "plain", scope: "fed_tkn_oauth_plain" },
      "provider_does_not_remember_tokens",
    ],
  ])("when %s, it answers 401", async (_, options, desc) => {
    const account = await seedAccount();
    await remember(account.sub, uniqueId("ext-perm-"), { accessToken: "secret-token", expiresIn: 3600 });
    const response = await fedToken(account.sub, options);
    expect(response.statusCode).toBe(401);
    expect(response.json).toEqual({ type: "security_error", error: "bad_access_token", desc });
    expect(response.body).not.toContain("secret-token");
  });

  it("when the application is no longer granted the permission its token carries, it answers 401", async () => {
    const account = await seedAccount();
    await remember(account.sub, "ext-grant", { accessToken: "secret-token", expiresIn: 3600 });
    const narrow = await createClient(["fed_tkn_oidc_mock"]);
    const withAny = await fedToken(account.sub, { scope: "fed_tkn_any", clientId: narrow.clientId });
    expect(withAny.statusCode).toBe(401);
    expect(withAny.json.desc).toBe("permission_not_granted_to_application");
    expect(withAny.body).not.toContain("secret-token");
    const specific = await fedToken(account.sub, { scope: "fed_tkn_oidc_mock", clientId: narrow.clientId });
    expect(specific.statusCode).toBe(200);
  });

  it("when a user token asks, it answers 401: stored tokens are for applications (system mode)", async () => {
    const account = await seedAccount();
    const response = await federationCall("fed-token-system", {
      params: { subjectId: account.sub, fedPointType: "oidc", fedPointName: "mock" },
      authorization: await userBearer(account.sub, ["fed_tkn_any", "svc_api_ufa"]),
    });
    expect(response.statusCode).toBe(401);
    expect(response.json.desc).toBe("insufficient_scope");
  });
});

describe("POST /svc/api/v2/users/current/fa/bind", () => {
  const PASSWORD = "a long password for binding";
  const CALLBACK = "https://app.example/fa-done";
  let web: { clientId: string };

  beforeAll(async () => {
    web = await createClient(["svc_api_sys_ufa"], { redirectUris: [CALLBACK, "https://app.example/other"] });
  });

  async function bind(body: Record<string, unknown>, authorization: string) {
    return federationCall("bind-user-basic", { body, authorization });
  }

  it("when the user's login and password are right, it answers the provider's authorize URL with state and PKCE", async () => {
    const account = await seedAccount({}, PASSWORD);
    const response = await bind(
      { fp: "oidc:mock", callback: CALLBACK, isPopup: true, clientId: web.clientId },
      basicAuthorization(account.sub, PASSWORD),
    );
    expect(response.statusCode).toBe(200);
    expect(response.headers["cache-control"]).toBe("no-store");
    const url = new URL(response.json.redirectTo as string);
    expect(`${url.origin}${url.pathname}`).toBe(`${provider.url}/authorize`);
    const q = Object.fromEntries(url.searchParams);
    expect(q).toEqual({
      response_type: "code",
      client_id: "svc-identity-test",
      redirect_uri: "https://api.example.com/svc/api/v2/users/current/fa/callback",
      scope: "openid profile offline_access",
      state: expect.stringMatching(/^[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}$/),
      code_challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      code_challenge_method: "S256",
      nonce: expect.any(String),
      display: "popup",
    });
    // Kept server-side: bound to the user and the application, expiring, with the verifier.
    const { Item } = await documentClient().send(
      new GetCommand({ TableName: config().tableName, Key: keys.federationState(q.state.split(".")[0]) }),
    );
    expect(Item).toMatchObject({ sub: account.sub, clientId: web.clientId, callback: CALLBACK, nonce: q.nonce });
    expect(Item?.expiresAt).toBeGreaterThan(Math.floor(Date.now() / 1000) + 590);
    expect(createHash("sha256").update(Item?.codeVerifier).digest("base64url")).toBe(q.code_challenge);
  });

  it.each([
    ["e-mail address", (a: { email?: { value: string } }) => a.email?.value.toUpperCase() as string],
    ["phone number", (a: { phone_number?: { value: string } }) => `+${a.phone_number?.value}` as string],
  ])("when the login is the account's %s, it binds for that account", async (_, loginOf) => {
    const account = await seedAccount({}, PASSWORD);
    const response = await bind(
      { fp: "oidc:mock", callback: CALLBACK, clientId: web.clientId },
      basicAuthorization(loginOf(account), PASSWORD),
    );
    expect(response.statusCode).toBe(200);
    const state = new URL(response.json.redirectTo as string).searchParams.get("state") as string;
    const { Item } = await documentClient().send(
      new GetCommand({ TableName: config().tableName, Key: keys.federationState(state.split(".")[0]) }),
    );
    expect(Item?.sub).toBe(account.sub);
  });

  it("when a user token with svc_api_ufa_chg binds, the token's application is the one whose callbacks count", async () => {
    const account = await seedAccount();
    const token = await userBearer(account.sub, ["svc_api_ufa_chg"], web.clientId);
    const response = await bind({ fp: "oidc:mock", callback: CALLBACK }, token);
    expect(response.statusCode).toBe(200);
    const other = await createClient(["svc_api_sys_ufa"], { redirectUris: [CALLBACK] });
    const mismatch = await bind({ fp: "oidc:mock", callback: CALLBACK, clientId: other.clientId }, token);
    expect(mismatch.statusCode).toBe(400);
    expect(mismatch.json).toEqual(
      v2Error("validation_error", "clientId must be the application of the access token", "clientId"),
    );
  });

  it.each([
    ["a wrong password", "wrong password!"],
    ["an unknown login", "unknown"],
  ])("when Basic carries %s, it answers 401 access_denied and starts nothing", async (_, password) => {
    const account = await seedAccount({}, PASSWORD);
    const login = password === "unknown" ? "nobody-with-this-login" : account.sub;
    const response = await bind(
      { fp: "oidc:mock", callback: CALLBACK, clientId: web.clientId },
      basicAuthorization(login, password),
    );
    expect(response.statusCode).toBe(401);
    expect(response.json).toEqual(v2Error("access_denied", "wrong login or password"));
    expect(response.headers["www-authenticate"]).toContain("Basic");
  });

  it("when the account is locked, the right password is refused, and only then says why (as the password grant does)", async () => {
    const account = await seedAccount({ locked: true }, PASSWORD);
    const response = await bind(
      { fp: "oidc:mock", callback: CALLBACK, clientId: web.clientId },
      basicAuthorization(account.sub, PASSWORD),
    );
    expect(response.statusCode).toBe(401);
    expect(response.json).toEqual(v2Error("access_denied", "password login is not allowed for this account"));
  });

  it("when a system token calls, it answers 401: `current` needs a user", async () => {
    const response = await bind({ fp: "oidc:mock", callback: CALLBACK }, await bearer("svc_api_sys_ufa_chg"));
    expect(response.statusCode).toBe(401);
    expect(response.json).toEqual(v2Error("access_denied", "user_token_required"));
  });

  it("when the user token lacks svc_api_ufa_chg, it answers 401 insufficient_scope", async () => {
    const account = await seedAccount();
    const token = await userBearer(account.sub, ["svc_api_ufa"], web.clientId);
    const response = await bind({ fp: "oidc:mock", callback: CALLBACK }, token);
    expect(response.statusCode).toBe(401);
    expect(response.json).toEqual(v2Error("access_denied", "insufficient_scope"));
    // v2 keeps its Basic challenge beside the RFC 6750 one that names the scope.
    expect(response.headers["www-authenticate"]).toMatch(
      /^Bearer realm="svc", error="insufficient_scope", scope="[^"]*svc_api_ufa_chg[^"]*", Basic realm="svc"$/,
    );
  });

  it("when the callback is not registered for the application, it refuses the open redirect", async () => {
    const account = await seedAccount({}, PASSWORD);
    for (const callback of ["https://evil.example/fa-done", `${CALLBACK}/more`, `${CALLBACK}?x=1`]) {
      const response = await bind(
        { fp: "oidc:mock", callback, clientId: web.clientId },
        basicAuthorization(account.sub, PASSWORD),
      );
      expect(response.statusCode).toBe(400);
      expect(response.json).toEqual(
        v2Error("validation_error", "callback is not a redirect URI registered for the application", "callback"),
      );
    }
  });

  it("when the provider or the application is unknown, it answers 400 naming it", async () => {
    const account = await seedAccount({}, PASSWORD);
    const auth = basicAuthorization(account.sub, PASSWORD);
    const provider400 = await bind({ fp: "oidc:nowhere", callback: CALLBACK, clientId: web.clientId }, auth);
    expect(provider400.statusCode).toBe(400);
    expect(provider400.json).toEqual({
      errors: [
        {
          code: "unknown_provider",
          desc: "no external provider of this type and name is configured",
          params: { fpType: "oidc", fpName: "nowhere" },
        },
      ],
    });
    const client400 = await bind({ fp: "oidc:mock", callback: CALLBACK, clientId: "no-such-app" }, auth);
    expect(client400.json).toEqual(v2Error("validation_error", "no application has this client id", "clientId"));
    const missing = await bind({ fp: "oidc:mock", callback: CALLBACK }, auth);
    expect(missing.statusCode).toBe(400);
    expect(missing.json).toEqual(
      v2Error("validation_error", "clientId: clientId is required with HTTP Basic", "clientId"),
    );
  });

  it.each([
    ["fp without a name", { fp: "oidc", callback: CALLBACK }, "fp"],
    ["a callback that is not a URL", { fp: "oidc:mock", callback: "not a url" }, "callback"],
    ["isPopup that is not a boolean", { fp: "oidc:mock", callback: CALLBACK, isPopup: "yes" }, "isPopup"],
    ["an unknown field", { fp: "oidc:mock", callback: CALLBACK, extra: 1 }, "extra"],
    ["no callback", { fp: "oidc:mock" }, "callback"],
  ])("when the body has %s, it answers 400 validation_error naming the field", async (_, body, field) => {
    const account = await seedAccount({}, PASSWORD);
    const response = await bind({ clientId: web.clientId, ...body }, basicAuthorization(account.sub, PASSWORD));
    expect(response.statusCode).toBe(400);
    const errors = response.json.errors as Array<{ code: string; params: { field: string } }>;
    expect(errors.map((e) => [e.code, e.params.field])).toEqual([["validation_error", field]]);
  });
});

describe("GET /svc/api/v2/users/current/fa/callback", () => {
  const CALLBACK = "https://app.example/fa-back";
  const PASSWORD = "a long password for the callback";
  let web: { clientId: string };

  beforeAll(async () => {
    web = await createClient(["svc_api_sys_ufa"], { redirectUris: [CALLBACK] });
  });

  /** A real bind: our bind call, then the provider's authorize step, which answers with the code. */
  async function providerAnswer(sub: string, fp = "oidc:mock") {
    const started = await federationCall("bind-user-basic", {
      body: { fp, callback: CALLBACK, clientId: web.clientId },
      authorization: basicAuthorization(sub, PASSWORD),
    });
    expect(started.statusCode).toBe(200);
    const authorize = await fetch(started.json.redirectTo as string, { redirect: "manual" });
    expect(authorize.status).toBe(302);
    return Object.fromEntries(new URL(authorize.headers.get("location") as string).searchParams);
  }

  const callback = (query: Record<string, string>) => federationCall("callback-forged-state", { query });

  /** The owner's confirmation of the waiting link: the page's form, posted with its cookie. */
  async function confirm(page: Awaited<ReturnType<typeof callback>>, password = PASSWORD, cookies = page.cookies) {
    const field = (name: string) => page.body.match(new RegExp(`name="${name}" value="([^"]*)"`))?.[1] ?? "";
    const event = await sampleEvent("events/federation/confirm-link-forged.json");
    event.body = new URLSearchParams({ confirmation: field("confirmation"), csrf: field("csrf"), password }).toString();
    event.cookies = (cookies ?? []).map((c) => c.split(";")[0]);
    return invoke("federation", event);
  }

  /** The callback in a browser without the owner's hosted session, then the owner's confirmation. */
  async function callbackConfirmed(query: Record<string, string>) {
    const page = await callback(query);
    expect(page.statusCode, page.body).toBe(200);
    return confirm(page);
  }

  it("when the provider answers with a code, it links the account, remembers the tokens and returns the browser", async () => {
    const account = await seedAccount({}, PASSWORD);
    provider.actAs("ext-callback-1", "Ivan Provider");
    const answer = await providerAnswer(account.sub);
    const page = await callback(answer);
    // Nothing is linked until the owner confirms (issue 21 finding 5).
    expect(page.statusCode).toBe(200);
    expect(page.headers["content-type"]).toMatch(/^text\/html/);
    expect(page.body).toContain("Ivan Provider");
    expect(await services().federation.listLinks(account.sub)).toEqual([]);
    const response = await confirm(page);
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe(CALLBACK);
    expect(response.headers["cache-control"]).toBe("no-store");
    expect(await services().federation.listLinks(account.sub)).toEqual([
      { sid: "ext-callback-1", fpType: "oidc", fpName: "mock", userName: "Ivan Provider" },
    ]);
    const exchange = provider.tokenRequests.at(-1);
    expect(exchange).toMatchObject({
      grant_type: "authorization_code",
      code: answer.code,
      redirect_uri: "https://api.example.com/svc/api/v2/users/current/fa/callback",
    });
    expect(exchange?.code_verifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const stored = await storedTokenItem(account.sub, "ext-callback-1");
    expect(stored?.accessToken).toMatch(/^v1\./);
  });

  it("when the same state comes back twice, the second is refused as used", async () => {
    const account = await seedAccount({}, PASSWORD);
    provider.actAs("ext-callback-2");
    const answer = await providerAnswer(account.sub);
    const page = await callback(answer);
    expect(page.statusCode).toBe(200);
    const replay = await callback(answer);
    expect(replay.statusCode).toBe(400);
    expect(replay.json).toEqual(
      v2Error("invalid_state", "the state has expired or was already used; start the bind again"),
    );
  });

  it("when the browser carries the account's hosted sign-in session, it links at once; another account's session must confirm", async () => {
    const account = await seedAccount({}, PASSWORD);
    const signedIn = async (who: typeof account) => {
      const opened = await recordLogin(
        who,
        { sessionClientId: HOSTED_CLIENT, clientId: web.clientId, amr: ["pwd"], refresh: false, ttlSeconds: 600 },
        { ip: "203.0.113.10", userAgent: "test" },
        loginDeps(),
        Math.floor(Date.now() / 1000),
        undefined,
        { method: "password", items: [] },
      );
      return { cookie: `svc_sso=${browserCookieValue(who.sub, opened.cookieSecret as string)}` };
    };
    const inBrowser = async (query: Record<string, string>, cookie: string) => {
      const event = await sampleEvent("events/federation/callback-forged-state.json");
      event.queryStringParameters = query;
      event.cookies = [cookie];
      return invoke("federation", event);
    };
    provider.actAs("ext-callback-sso");
    const own = await inBrowser(await providerAnswer(account.sub), (await signedIn(account)).cookie);
    expect(own.statusCode).toBe(302);
    expect(own.headers.location).toBe(CALLBACK);
    expect((await services().federation.listLinks(account.sub)).map((l) => l.sid)).toEqual(["ext-callback-sso"]);

    const target = await seedAccount({}, PASSWORD);
    provider.actAs("ext-callback-sso-2");
    const foreign = await inBrowser(await providerAnswer(target.sub), (await signedIn(account)).cookie);
    expect(foreign.statusCode).toBe(200);
    expect(await services().federation.listLinks(target.sub)).toEqual([]);
  });

  it("when the confirmation has a wrong password, a second try or another browser's cookie, nothing is linked", async () => {
    const account = await seedAccount({}, PASSWORD);
    provider.actAs("ext-callback-wrong");
    const page = await callback(await providerAnswer(account.sub));
    const elsewhere = await confirm(page, PASSWORD, ["svc_csrf=another-browsers-token-000000000"]);
    expect(elsewhere.statusCode).toBe(400);
    const wrong = await confirm(page, "not the password");
    expect(wrong.statusCode).toBe(303);
    expect(Object.fromEntries(new URL(wrong.headers.location).searchParams)).toEqual({
      error: "access_denied",
      error_description: "the link was not confirmed with the account's password",
    });
    // Single use: the right password after a wrong one finds nothing to confirm.
    expect((await confirm(page)).statusCode).toBe(400);
    expect(await services().federation.listLinks(account.sub)).toEqual([]);
  });

  it("when another account's password confirms, nothing is linked to either account", async () => {
    const account = await seedAccount({}, PASSWORD);
    const other = await seedAccount({}, "the other account's password");
    provider.actAs("ext-callback-other");
    const page = await callback(await providerAnswer(account.sub));
    const response = await confirm(page, "the other account's password");
    expect(new URL(response.headers.location).searchParams.get("error")).toBe("access_denied");
    expect(await services().federation.listLinks(account.sub)).toEqual([]);
    expect(await services().federation.listLinks(other.sub)).toEqual([]);
  });

  it("when the state is missing or forged, it answers 400 JSON and calls no provider", async () => {
    const before = provider.tokenRequests.length;
    const forged = await invoke("federation", await sampleEvent("events/federation/callback-forged-state.json"));
    expect(forged.statusCode).toBe(400);
    expect(forged.json).toEqual(v2Error("invalid_state", "the state is missing or was not issued by this service"));
    expect((await callback({ code: "x" })).statusCode).toBe(400);
    expect(provider.tokenRequests.length).toBe(before);
  });

  it("when the state has expired, it is refused even before TTL deletion removed it", async () => {
    const account = await seedAccount({}, PASSWORD);
    const answer = await providerAnswer(account.sub);
    const id = answer.state.split(".")[0];
    const key = keys.federationState(id);
    const { Item } = await documentClient().send(new GetCommand({ TableName: config().tableName, Key: key }));
    await documentClient().send(
      new PutCommand({
        TableName: config().tableName,
        Item: { ...Item, expiresAt: Math.floor(Date.now() / 1000) - 1 },
      }),
    );
    const response = await callback(answer);
    expect(response.statusCode).toBe(400);
    expect((response.json.errors as Array<{ code: string }>)[0].code).toBe("invalid_state");
  });

  it("when the provider answers with an error, the browser returns to the callback with it", async () => {
    const account = await seedAccount({}, PASSWORD);
    const answer = await providerAnswer(account.sub);
    const response = await callback({ state: answer.state, error: "access_denied" });
    expect(response.statusCode).toBe(302);
    const location = new URL(response.headers.location);
    expect(`${location.origin}${location.pathname}`).toBe(CALLBACK);
    expect(Object.fromEntries(location.searchParams)).toEqual({
      error: "access_denied",
      error_description: "the provider did not authorize the link",
    });
    expect(await services().federation.listLinks(account.sub)).toEqual([]);
  });

  it("when the code exchange fails at the provider, the browser returns with provider_error and nothing is linked", async () => {
    const account = await seedAccount({}, PASSWORD);
    const answer = await providerAnswer(account.sub);
    provider.nextTokenAnswer((r) => {
      r.statusCode = 400;
      r.body = { error: "invalid_grant" };
    });
    const response = await callback(answer);
    expect(response.statusCode).toBe(302);
    expect(new URL(response.headers.location).searchParams.get("error")).toBe("provider_error");
    expect(await services().federation.listLinks(account.sub)).toEqual([]);
  });

  it("when the external account is linked to someone else, the browser returns with already_linked", async () => {
    const owner = await seedAccount();
    await services().federation.link({ sub: owner.sub, fpType: "oidc", fpName: "mock", sid: "ext-owned" }, 1);
    const account = await seedAccount({}, PASSWORD);
    provider.actAs("ext-owned");
    const response = await callbackConfirmed(await providerAnswer(account.sub));
    expect(response.statusCode).toBe(303);
    expect(new URL(response.headers.location).searchParams.get("error")).toBe("already_linked");
    expect(await services().federation.listLinks(account.sub)).toEqual([]);
  });

  it("when the provider has no userinfo, the account id comes from the id_token and no tokens are kept", async () => {
    const account = await seedAccount({}, PASSWORD);
    provider.actAs("ext-plain-1");
    const response = await callbackConfirmed(await providerAnswer(account.sub, "oauth:plain"));
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe(CALLBACK);
    expect(await services().federation.listLinks(account.sub)).toEqual([
      { sid: "ext-plain-1", fpType: "oauth", fpName: "plain" },
    ]);
    const { Item } = await documentClient().send(
      new GetCommand({
        TableName: config().tableName,
        Key: keys.federatedToken(account.sub, "oauth", "plain", "ext-plain-1"),
      }),
    );
    expect(Item).toBeUndefined();
  });

  it("when the id_token carries another nonce than the one we sent, nothing is linked", async () => {
    const account = await seedAccount({}, PASSWORD);
    provider.actAs("ext-nonce");
    const answer = await providerAnswer(account.sub, "oauth:plain");
    const otherNonce = (token: { payload: Record<string, unknown> }) => {
      token.payload.nonce = "someone-elses-nonce";
    };
    provider.server.service.on("beforeTokenSigning", otherNonce);
    const response = await callback(answer).finally(() =>
      provider.server.service.off("beforeTokenSigning", otherNonce),
    );
    expect(new URL(response.headers.location).searchParams.get("error")).toBe("provider_error");
    expect(await services().federation.listLinks(account.sub)).toEqual([]);
  });
});

describe("round trips", () => {
  it("when links are listed, made and removed and a valid token is read, each costs the fewest DynamoDB calls", async () => {
    const account = await seedAccount();
    const caller = await createClient(["fed_tkn_any"]);
    const tokens = {
      list: await bearer("svc_api_sys_ufa"),
      change: await bearer("svc_api_sys_ufa_chg"),
      fed: await bearer("fed_tkn_any", caller.clientId),
    };
    await listLinks(account.sub, tokens.list); // warm: signing keys are read once per container
    const cost = async (run: () => Promise<{ statusCode: number }>) => {
      const before = roundTripCount();
      const { statusCode } = await run();
      return { statusCode, roundTrips: roundTripCount() - before };
    };
    expect(await cost(() => link(account.sub, "ext-cost", "", tokens.change))).toEqual({
      statusCode: 204,
      roundTrips: 1,
    });
    expect(await cost(() => listLinks(account.sub, tokens.list))).toEqual({ statusCode: 200, roundTrips: 1 });
    await remember(account.sub, "ext-cost", { accessToken: "a", expiresIn: 600 });
    const fed = () =>
      federationCall("fed-token-system", {
        params: { subjectId: account.sub, fedPointType: "oidc", fedPointName: "mock" },
        authorization: tokens.fed,
      });
    // The application's grant and the tokens, read at once.
    expect(await cost(fed)).toEqual({ statusCode: 200, roundTrips: 2 });
    const unlink = () =>
      federationCall("unlink-system", { params: linkParams(account.sub, "ext-cost"), authorization: tokens.change });
    expect(await cost(unlink)).toEqual({ statusCode: 204, roundTrips: 1 });
  });
});

describe("sample events", () => {
  it("when each federation sample event is invoked against the sample user, it answers as documented", async () => {
    await seedAccount({ sub: "sample-user" }, "correct horse battery staple");
    await registerClient(services().clients, {
      clientId: "sample-web",
      scopes: ["svc_api_sys_ufa"],
      redirectUris: ["https://app.example/fa-done"],
    });
    const rest = "rest-password-of-the-sample-app-0001";
    const app = await createClient(["fed_tkn_any"], { restPassword: rest });
    const values = {
      clientId: app.clientId,
      clientBasic: basicCredentials(app.clientId, rest),
    };
    const run = async (name: string) =>
      (await invoke("federation", await sampleEvent(`events/federation/${name}.json`, values))).statusCode;
    expect(await run("link-system")).toBe(204);
    expect(await run("list-links-system")).toBe(200);
    expect(await run("list-links-user-mode")).toBe(200);
    expect(await run("link-unknown-provider")).toBe(400);
    expect(await run("unlink-system")).toBe(204);
    expect(await run("link-system")).toBe(204);
    expect(await run("unlink-v2-rest-password")).toBe(204);
    expect(await run("bind-user-basic")).toBe(200);
    expect(await run("callback-forged-state")).toBe(400);
    expect(await run("fed-token-system")).toBe(404);
    await remember("sample-user", "johndoe", { accessToken: "at", expiresIn: 3600 });
    expect(await run("fed-token-system")).toBe(200);
  });

  it("when the state item is written, it carries entity, schema version and the TTL attribute", async () => {
    const state = {
      id: uniqueId("state-"),
      sub: "s",
      clientId: "c",
      fpType: "oidc",
      fpName: "mock",
      callback: "https://app.example/x",
      redirectUri: "https://api.example.com/cb",
      codeVerifier: "v",
      nonce: "n",
      expiresAt: 2_000_000_000,
    };
    await services().federation.saveState(state);
    const { Item } = await documentClient().send(
      new GetCommand({ TableName: config().tableName, Key: keys.federationState(state.id) }),
    );
    expect(Item).toEqual(itemOf(ENTITY.federationState, keys.federationState(state.id), state));
  });
});
