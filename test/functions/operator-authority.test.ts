import * as oidc from "openid-client";
import { describe, expect, it } from "vitest";
import { services, totpDeps } from "../../lib/container";
import type { Account } from "../../lib/domain/accounts/account";
import { instanceIdOf } from "../../lib/domain/accounts/instance-id";
import { OPERATOR_CONSOLE_CLIENT } from "../../lib/domain/operators/console-client";
import { attachGenerator, issueSecret } from "../../lib/domain/security/totp-generators";
import { roundTripCount } from "../../lib/store/client";
import { keys } from "../../lib/store/keys";
import { createClient, seedAccount, systemToken, uniqueId } from "../support/fixtures";
import { useIssuerGateway } from "../support/gateway";
import { PASSWORD } from "../support/hosted-sign-in";
import { httpBrowser } from "../support/http-browser";
import { storedItem, storedItems } from "../support/stored";
import { svcAdmin } from "../support/svc-admin";
import { totpCode } from "../support/totp-codes";

/**
 * The admin console's authority (docs/decisions/operator-authority.md): an operator is an
 * account holding APP_ADMIN or SYS_MON over the built-in `svc-console` client; the console
 * signs in with the code flow and PKCE (openid-client, as a public client), a second factor
 * is required, and the API reads the right again on every call.
 */

const { issuer } = await useIssuerGateway();
const consoleUri = `${issuer}/console/`;

async function operator(right?: "APP_ADMIN" | "SYS_MON", withTotp = true) {
  const account = await seedAccount({}, PASSWORD);
  let secret: string | undefined;
  if (withTotp) {
    ({ base32Secret: secret } = await issueSecret(totpDeps(), account));
    await attachGenerator(totpDeps(), account.sub, { base32Secret: secret, otpCode: totpCode(secret, -30) });
  }
  if (right) await grant(account.sub, right);
  return { account, secret };
}

/** Through the rights API (interface §4.3), as an operator is made: the console needs no stored record to be granted over. */
async function grant(sub: string, right: string) {
  const rightsAdmin = await systemToken(["svc_rights_full_access"]);
  const body = { subject: sub, object: OPERATOR_CONSOLE_CLIENT, objectType: "its", rights: [right], tags: ["ops"] };
  const answer = await api(rightsAdmin, "/svc/api/v3/rights", { method: "PUT", body: JSON.stringify(body) });
  expect(answer.status).toBeLessThan(300);
}

async function consoleClient() {
  return oidc.discovery(new URL(issuer), OPERATOR_CONSOLE_CLIENT, undefined, oidc.None(), {
    execute: [oidc.allowInsecureRequests],
  });
}

/** The console's sign-in as a browser makes it: the password, then the code when asked; answers where it ends. */
async function signIn(account: Account, secret: string | undefined, codeOffset = 0) {
  const config = await consoleClient();
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: consoleUri,
    scope: "openid profile svc_console",
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
    state,
    nonce,
  });
  const browser = httpBrowser();
  await browser.open(url);
  const form = new URL("/svc/oauth/signin", url);
  let answer = await browser.post(form, { ...browser.fields, username: account.sub, password: PASSWORD });
  const askedCode = answer.status === 200 && answer.html.includes('name="otp"');
  if (askedCode && secret) answer = await browser.post(form, { ...browser.fields, otp: totpCode(secret, codeOffset) });
  return { config, verifier, state, nonce, answer, askedCode, browser };
}

/** `codeOffset`: a second sign-in within 30 s needs the next code (a TOTP code is spent once). */
async function consoleTokens(account: Account, secret: string, codeOffset = 0) {
  const { config, verifier, state, nonce, answer } = await signIn(account, secret, codeOffset);
  expect(answer.status).toBe(303);
  const callback = new URL(answer.location as string);
  expect(callback.href.startsWith(consoleUri)).toBe(true);
  return oidc.authorizationCodeGrant(config, callback, {
    pkceCodeVerifier: verifier,
    expectedState: state,
    expectedNonce: nonce,
  });
}

/** The operator's calls in an account's trail (its sign-ins to the console are events too). */
const operatorTrail = async (sub: string) =>
  (await storedItems(sub, "EVENT#")).filter(
    (e) => e.cId === OPERATOR_CONSOLE_CLIENT && (e.prms as { route?: string })?.route,
  );

const api = (token: string, path: string, init: RequestInit = {}) =>
  fetch(`${issuer}${path.replace(/^\/svc/, "")}`, {
    ...init,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...init.headers },
  });

describe("signing in to the admin console", () => {
  it("asks an operator for the second factor even when the account does not require one, then issues tokens naming the role", async () => {
    const { account, secret } = await operator("APP_ADMIN");
    expect(account.requiredFactor).toBeUndefined();
    const first = await signIn(account, undefined);
    expect(first.askedCode).toBe(true);
    const tokens = await consoleTokens(account, secret as string);
    expect(tokens.claims()).toMatchObject({ sub: account.sub, aud: OPERATOR_CONSOLE_CLIENT, svc_op: "admin" });
    expect(tokens.claims()?.amr).toContain("mfa");
    expect(tokens.scope?.split(" ")).toContain("svc_console");
  });

  it("names a monitor's role in the ID token", async () => {
    const { account, secret } = await operator("SYS_MON");
    const tokens = await consoleTokens(account, secret as string);
    expect(tokens.claims()?.svc_op).toBe("monitor");
  });

  it("sends a user without the right back to the console with access_denied and no code", async () => {
    const { account, secret } = await operator(undefined);
    const { answer, state } = await signIn(account, secret);
    expect(answer.status).toBe(303);
    const back = new URL(answer.location as string);
    expect(back.href.startsWith(consoleUri)).toBe(true);
    expect(back.searchParams.get("error")).toBe("access_denied");
    expect(back.searchParams.get("state")).toBe(state);
    expect(back.searchParams.get("code")).toBeNull();
  });

  it("keeps an operator without any second factor at the code step: no code reaches the console", async () => {
    const { account } = await operator("APP_ADMIN", false);
    const { answer, askedCode } = await signIn(account, undefined);
    expect(askedCode).toBe(true);
    expect(answer.status).toBe(200);
    expect(answer.location).toBeUndefined();
  });

  it("does not reuse a browser session that proved one factor: the console signs in again", async () => {
    const { account, secret } = await operator("APP_ADMIN");
    // A one-factor browser session, opened by another application's sign-in.
    const { clientId } = await createClient(["svc_api_user"], {
      redirectUris: ["http://127.0.0.1:9/cb"],
      firstParty: true,
    });
    const browser = httpBrowser();
    const plain = new URL(`${issuer}/oauth/authorize`);
    for (const [k, v] of Object.entries({
      client_id: clientId,
      response_type: "code",
      redirect_uri: "http://127.0.0.1:9/cb",
      scope: "openid",
      code_challenge: "x".repeat(43),
      code_challenge_method: "S256",
    }))
      plain.searchParams.set(k, v);
    await browser.open(plain);
    const signedIn = await browser.post(new URL("/svc/oauth/signin", plain), {
      ...browser.fields,
      username: account.sub,
      password: PASSWORD,
    });
    expect(signedIn.status).toBe(303);
    const config = await consoleClient();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: consoleUri,
      scope: "openid svc_console",
      code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()),
      code_challenge_method: "S256",
    });
    const page = await browser.open(url);
    expect(page.status).toBe(200);
    expect(page.html).toContain('name="password"');
    expect(secret).toBeDefined();
  });

  it("refuses the operator scope to any other client, and the console's id to a new client", async () => {
    const { clientId } = await createClient(["svc_api_user"], {
      redirectUris: ["http://127.0.0.1:9/cb"],
      firstParty: true,
    });
    const authorize = new URL(`${issuer}/oauth/authorize`);
    for (const [k, v] of Object.entries({
      client_id: clientId,
      response_type: "code",
      redirect_uri: "http://127.0.0.1:9/cb",
      scope: "openid svc_console",
      code_challenge: "x".repeat(43),
      code_challenge_method: "S256",
    }))
      authorize.searchParams.set(k, v);
    const refused = await fetch(authorize, { redirect: "manual" });
    expect(new URL(refused.headers.get("location") as string).searchParams.get("error")).toBe("invalid_scope");

    const admin = await systemToken(["svc_api_sys_clients_chg", "svc_api_sys_clients_admin"]);
    const taken = await api(admin, "/svc/admin/api/v3/clients", {
      method: "POST",
      body: JSON.stringify({
        clientId: OPERATOR_CONSOLE_CLIENT,
        scopes: ["svc_api_user"],
        public: true,
        grantTypes: ["authorization_code"],
        redirectUris: ["https://evil.example/cb"],
      }),
    });
    expect(taken.status).toBe(400);
    expect(JSON.stringify(await taken.json())).toContain("console");
    expect(await storedItem(keys.client(OPERATOR_CONSOLE_CLIENT))).toBeUndefined();
  });
});

describe("the management API with an operator's token", () => {
  it("an admin reads and changes any account; the change is a security event in the operator's trail", async () => {
    const { account, secret } = await operator("APP_ADMIN");
    const tokens = await consoleTokens(account, secret as string);
    const target = await seedAccount({});
    await api(tokens.access_token, `/svc/api/v3/users/${target.sub}`); // warm: signing keys are read once per container
    const before = roundTripCount();
    const read = await api(tokens.access_token, `/svc/api/v3/users/${target.sub}`);
    expect(read.status).toBe(200);
    // The session, the account and both operator grants in one BatchGetItem, then the route's GetItem.
    expect(roundTripCount() - before).toBe(2);
    expect(((await read.json()) as { sub: string }).sub).toBe(target.sub);
    // Reads leave no event: the trail holds what operators changed.
    expect(await operatorTrail(account.sub)).toEqual([]);

    const changed = await api(tokens.access_token, `/svc/api/v3/users/${instanceIdOf(target.sub)}`, {
      method: "POST",
      headers: { "user-agent": "console-test", "x-forwarded-for": "198.51.100.7" },
      body: JSON.stringify({ given_name: "Changed" }),
    });
    expect(changed.status).toBeLessThan(300);
    expect((await storedItem(keys.userProfile(target.sub)))?.given_name).toBe("Changed");
    const trail = await operatorTrail(account.sub);
    expect(trail).toHaveLength(1);
    expect(trail[0]).toMatchObject({
      type: expect.any(String),
      result: "ok",
      prms: { route: "users.change", operator: "admin", target: target.sub },
    });
    expect(trail[0].sid).toBeDefined();
    // Nothing of the operator's action lands in the target's own trail as theirs.
    expect(await operatorTrail(target.sub)).toEqual([]);
  });

  it("a monitor reads, and every change is refused with 403 and recorded; nothing changes", async () => {
    const { account, secret } = await operator("SYS_MON");
    const tokens = await consoleTokens(account, secret as string);
    const target = await seedAccount({});
    expect((await api(tokens.access_token, `/svc/api/v3/users/${target.sub}`)).status).toBe(200);
    const refused = await api(tokens.access_token, `/svc/api/v3/users/${instanceIdOf(target.sub)}`, {
      method: "POST",
      body: JSON.stringify({ given_name: "Changed" }),
    });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ error: "read_only_operator" });
    expect((await storedItem(keys.userProfile(target.sub)))?.given_name).not.toBe("Changed");
    const trail = await operatorTrail(account.sub);
    expect(trail).toMatchObject([{ result: "read_only_operator", prms: { operator: "monitor" } }]);
  });

  it("a right revoked refuses the very next call of a token issued before", async () => {
    const { account, secret } = await operator("APP_ADMIN");
    const tokens = await consoleTokens(account, secret as string);
    const target = await seedAccount({});
    expect((await api(tokens.access_token, `/svc/api/v3/users/${target.sub}`)).status).toBe(200);
    const rightsAdmin = await systemToken(["svc_rights_full_access", "svc_rm_rights"]);
    const body = { subject: account.sub, object: OPERATOR_CONSOLE_CLIENT, objectType: "its", rights: ["APP_ADMIN"] };
    const revoked = await api(rightsAdmin, "/svc/api/v3/rights", { method: "DELETE", body: JSON.stringify(body) });
    expect(revoked.status).toBeLessThan(300);
    const on = await api(rightsAdmin, `/svc/api/v3/rights/on/its/${OPERATOR_CONSOLE_CLIENT}`);
    expect(on.status).toBe(200);
    expect(JSON.stringify(await on.json())).not.toContain(account.sub);
    const after = await api(tokens.access_token, `/svc/api/v3/users/${target.sub}`);
    expect(after.status).toBe(401);
    expect(await after.json()).toMatchObject({ error: "bad_access_token", desc: "not_an_operator" });
    // Nor does a refresh give it back.
    const config = await consoleClient();
    await expect(oidc.refreshTokenGrant(config, tokens.refresh_token as string)).rejects.toMatchObject({
      error: "invalid_grant",
    });
  });

  it("a destructive change (an application's deletion, an organization domain's removal) needs a sign-in within 10 minutes: otherwise an RFC 9470 step-up challenge", async () => {
    const { account, secret } = await operator("APP_ADMIN");
    const tokens = await consoleTokens(account, secret as string);
    const admin = await systemToken(["svc_api_sys_clients", "svc_api_sys_clients_chg"]);
    const { clientId } = await createClient(["svc_api_user"], {});
    expect((await api(admin, `/svc/admin/api/v3/clients/${clientId}`)).status).toBe(200);
    // The console's token session signed in eleven minutes ago.
    const sessions = (await storedItems(account.sub, keys.sessionPrefix)).filter(
      (s) => s.clientId === OPERATOR_CONSOLE_CLIENT,
    );
    expect(sessions).toHaveLength(1);
    await services().sessions.confirmSignIn(
      account.sub,
      sessions[0].sid as string,
      Math.floor(Date.now() / 1000) - 11 * 60,
    );
    const stale = await api(tokens.access_token, `/svc/admin/api/v3/clients/${clientId}`, { method: "DELETE" });
    expect(stale.status).toBe(401);
    expect(stale.headers.get("www-authenticate")).toMatch(/error="insufficient_user_authentication", max_age=600/);
    expect(await storedItem(keys.client(clientId))).toBeDefined();
    // So does removing an organization's domain (its enforced single sign-on goes with it).
    const orgId = uniqueId("org-");
    const groupsAdmin = await systemToken(["svc_groups"]);
    const post = (path: string, body: object) => api(groupsAdmin, path, { method: "POST", body: JSON.stringify(body) });
    expect((await post("/svc/api/v2/grps?profile=org", { profile: "org", id: orgId })).status).toBe(201);
    expect((await post(`/svc/api/v3/orgs/${orgId}/domains`, { domain: `${orgId}.example.org` })).status).toBe(201);
    const domainPath = `/svc/api/v3/orgs/${orgId}/domains/${orgId}.example.org`;
    const staleDomain = await api(tokens.access_token, domainPath, { method: "DELETE" });
    expect(staleDomain.status).toBe(401);
    expect(staleDomain.headers.get("www-authenticate")).toMatch(/error="insufficient_user_authentication"/);
    expect(await storedItem(keys.orgDomain(orgId, `${orgId}.example.org`))).toBeDefined();
    // Signed in again just now (max_age=0 in the console): the same change goes through.
    const fresh = await consoleTokens(account, secret as string, 30);
    const deleted = await api(fresh.access_token, `/svc/admin/api/v3/clients/${clientId}`, { method: "DELETE" });
    expect(deleted.status).toBeLessThan(300);
    expect(await storedItem(keys.client(clientId))).toBeUndefined();
    expect((await api(fresh.access_token, domainPath, { method: "DELETE" })).status).toBe(204);
    expect(await storedItem(keys.orgDomain(orgId, `${orgId}.example.org`))).toBeUndefined();
  });

  it("an ordinary user's token stays a user's: no system route opens to it", async () => {
    const { account } = await operator("APP_ADMIN");
    const { userToken } = await import("../support/fixtures");
    const token = await userToken(account.sub, ["svc_api_user"]);
    const other = await seedAccount({});
    const refused = await api(token, `/svc/api/v3/users/${other.sub}`);
    expect(refused.status).toBe(401);
  });
});

describe("svc-admin operators", () => {
  it("adds an operator who can then sign in to the console, lists and removes them", async () => {
    const { account, secret } = await operator(undefined);
    const added = await svcAdmin("operators", "grant", "--sub", account.sub, "--read-only");
    expect(added).toMatchObject({ code: 0 });
    expect(added.stdout).toContain("SYS_MON");
    expect((await svcAdmin("operators", "list")).stdout).toContain(`${account.sub}\tSYS_MON`);
    const tokens = await consoleTokens(account, secret as string);
    expect(tokens.claims()?.svc_op).toBe("monitor");

    expect(await svcAdmin("operators", "revoke", "--sub", account.sub)).toMatchObject({ code: 0 });
    expect((await svcAdmin("operators", "list")).stdout).not.toContain(account.sub);
    const refused = await api(tokens.access_token, `/svc/api/v3/users/${account.sub}`);
    expect(refused.status).toBe(401);
  });

  it("refuses an account that does not exist, writing nothing", async () => {
    const run = await svcAdmin("operators", "grant", "--sub", "no-such-account-0000");
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("no account has this identifier");
    expect((await svcAdmin("operators", "list")).stdout).not.toContain("no-such-account-0000");
  });
});
