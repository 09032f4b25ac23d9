import { createHash } from "node:crypto";
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from "jose";
import * as oidc from "openid-client";
import { describe, expect, it } from "vitest";
import { services, totpDeps } from "../../lib/container";
import { claimsFor } from "../../lib/domain/oidc/scopes";
import { attachGenerator, issueSecret } from "../../lib/domain/security/totp-generators";
import { seedAccount, systemBearer, uniqueId } from "../support/fixtures";
import { PASSWORD, useHostedSignIn } from "../support/hosted-sign-in";
import { totpCode } from "../support/totp-codes";

/**
 * The whole browser sign-in: a relying party built with openid-client (a certified RP
 * library) discovers the provider, and a real chromium signs in on the hosted pages.
 */

const {
  issuer,
  browser,
  rp,
  relyingParty,
  startAuthorization,
  submit,
  typeSignInForm,
  fillSignInForm,
  alertText,
  backAtClient,
} = await useHostedSignIn();

describe("discovery", () => {
  it("publishes the endpoints openid-client configures itself from", async () => {
    const { config } = await relyingParty();
    const meta = config.serverMetadata();
    expect(meta.issuer).toBe(issuer);
    expect(meta.authorization_endpoint).toBe(`${issuer}/oauth/authorize`);
    expect(meta.token_endpoint).toBe(`${issuer}/oauth/te`);
    expect(meta.code_challenge_methods_supported).toEqual(["S256"]);
    // RS256 is mandatory (OIDC Core 15.1) and the default of clients that register none.
    expect(meta.id_token_signing_alg_values_supported).toEqual(["RS256", "ES256"]);
    const rfc8414 = await fetch(`${new URL(issuer).origin}/.well-known/oauth-authorization-server/svc`);
    expect(await rfc8414.json()).toEqual(meta);
    // Only registered metadata, and no promise of a signed userinfo it does not make.
    expect(Object.keys(meta).filter((name) => name.startsWith("svc_"))).toEqual([]);
    expect(meta).not.toHaveProperty("userinfo_signing_alg_values_supported");
    expect(meta.scopes_supported).toEqual(expect.arrayContaining(["openid", "profile", "email", "address", "phone"]));
  });

  it("takes the address scope as clients send it, and releases nothing for it", async () => {
    const { config, redirectUri } = await relyingParty();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: "openid address",
      state: "s-address",
      code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()),
      code_challenge_method: "S256",
    });
    const answer = await fetch(url, { redirect: "manual" });
    // The sign-in page, not an invalid_scope redirect.
    expect(answer.status).toBe(200);
    expect(await answer.text()).toContain("<form");
    const account = await seedAccount({ given_name: "Ann", phone_number: { value: "79990001122", verified: true } });
    expect(claimsFor(account, ["openid", "address"])).toEqual({});
  });
});

describe("the authorization request sent as a form POST (OIDC Core 3.1.2.1)", () => {
  it("signs in and answers the code as for GET; a bad client gets the error page, not a redirect", async () => {
    const account = await seedAccount({}, PASSWORD);
    const { config, redirectUri } = await relyingParty();
    const started = await startAuthorization(config, redirectUri);
    const context = await browser().newContext({ locale: "en-US" });
    const page = await context.newPage();
    // The relying party's page posts the request, as a form with every parameter.
    const fields = [...started.url.searchParams].map(([name, value]) => {
      const escaped = value.replace(/&/g, "&amp;").replace(/"/g, "&quot;");
      return `<input type="hidden" name="${name}" value="${escaped}">`;
    });
    const endpoint = config.serverMetadata().authorization_endpoint as string;
    await page.setContent(`<form method="post" action="${endpoint}">${fields.join("")}<button>Go</button></form>`);
    const [answer] = await Promise.all([page.waitForNavigation(), page.getByRole("button", { name: "Go" }).click()]);
    expect(answer?.request().method()).toBe("POST");
    expect(answer?.status()).toBe(200);
    await page.getByLabel(/login/i).fill(account.sub);
    await page.getByLabel(/^password$/i).fill(PASSWORD);
    await submit(page);
    const tokens = await oidc.authorizationCodeGrant(config, await backAtClient(page), {
      pkceCodeVerifier: started.verifier,
      expectedState: started.state,
      expectedNonce: started.nonce,
    });
    expect(tokens.claims()).toMatchObject({ sub: account.sub, nonce: started.nonce });
    await context.close();

    const unknown = new URLSearchParams(started.url.searchParams);
    unknown.set("client_id", "no-such-client");
    const refused = await fetch(endpoint, { method: "POST", body: unknown, redirect: "manual" });
    expect(refused.status).toBe(400);
    expect(refused.headers.get("location")).toBeNull();
    expect(await refused.text()).toMatch(/^<!doctype html>/);
    // prompt=none with no session seen answers login_required at the client, as GET does.
    const silent = new URLSearchParams(started.url.searchParams);
    silent.set("prompt", "none");
    const back = await fetch(endpoint, { method: "POST", body: silent, redirect: "manual" });
    expect(back.status).toBe(303);
    expect(new URL(back.headers.get("location") ?? "").searchParams.get("error")).toBe("login_required");
  });
});

describe("response_mode=form_post (OAuth 2.0 Form Post Response Mode)", () => {
  it("the browser posts the code to the client, which openid-client takes; errors come back the same way", async () => {
    const account = await seedAccount({}, PASSWORD);
    const { config, redirectUri } = await relyingParty();
    expect(config.serverMetadata().response_modes_supported).toEqual(["query", "form_post"]);
    const started = await startAuthorization(config, redirectUri, { response_mode: "form_post" });
    const { context, page } = await typeSignInForm(started.url, account.sub);
    // Waiting from before the click: the page that posts may send the form before a later wait begins.
    const [posted] = await Promise.all([page.waitForRequest((r) => r.url().startsWith(rp.url())), submit(page)]);
    expect(posted.method()).toBe("POST");
    expect(posted.url()).toBe(redirectUri);
    const body = new URLSearchParams(posted.postData() ?? "");
    expect(body.get("state")).toBe(started.state);
    expect(body.get("iss")).toBe(issuer);
    const callback = new Request(redirectUri, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body,
    });
    const tokens = await oidc.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: started.verifier,
      expectedState: started.state,
      expectedNonce: started.nonce,
    });
    expect(tokens.claims()).toMatchObject({ sub: account.sub });
    await context.close();

    // The page that posts: a form and the one script its CSP admits by hash, in the asked language.
    const silent = await startAuthorization(config, redirectUri, {
      response_mode: "form_post",
      prompt: "none",
      ui_locales: "ru",
    });
    const answer = await fetch(silent.url, { redirect: "manual" });
    expect(answer.status).toBe(200);
    const csp = answer.headers.get("content-security-policy") ?? "";
    expect(csp).toMatch(/script-src 'sha256-[A-Za-z0-9+/=]+';/);
    expect(csp).not.toContain("unsafe-inline");
    const page2 = await answer.text();
    expect(page2).toContain('<html lang="ru">');
    expect(page2).toContain(`<form method="post" action="${redirectUri}">`);
    expect(page2).toContain('<input type="hidden" name="error" value="login_required">');
    expect(page2).toContain(`<input type="hidden" name="state" value="${silent.state}">`);

    // Without scripts the person sends it with the button, from the keyboard.
    const noScript = await browser().newContext({ locale: "en-US", javaScriptEnabled: false });
    const manual = await noScript.newPage();
    await manual.goto(silent.url.toString());
    await manual.getByRole("button", { name: "Продолжить" }).focus();
    const [sent] = await Promise.all([
      manual.waitForRequest((r) => r.url().startsWith(rp.url())),
      manual.keyboard.press("Enter"),
    ]);
    expect(new URLSearchParams(sent.postData() ?? "").get("error")).toBe("login_required");
    await noScript.close();

    // A mode it does not speak is refused, in the query.
    const other = await startAuthorization(config, redirectUri, { response_mode: "fragment" });
    const refused = await fetch(other.url, { redirect: "manual" });
    expect(refused.status).toBe(303);
    expect(new URL(refused.headers.get("location") ?? "").searchParams.get("error")).toBe("invalid_request");
  });
});

describe("claims one by one: the claims parameter (OIDC Core 5.5) and the phone scope", () => {
  /** Signs in through chromium with `extra` authorization parameters; the tokens and the userinfo answer. */
  async function signedInWith(login: string, extra: Record<string, string>) {
    const party = await relyingParty();
    const started = await startAuthorization(party.config, party.redirectUri, extra);
    const { context, page } = await fillSignInForm(started.url, login);
    const callback = await backAtClient(page);
    await context.close();
    const tokens = await oidc.authorizationCodeGrant(party.config, callback, {
      pkceCodeVerifier: started.verifier,
      expectedState: started.state,
      expectedNonce: started.nonce,
    });
    const info = await oidc.fetchUserInfo(party.config, tokens.access_token, oidc.skipSubjectCheck);
    return { claims: tokens.claims() ?? {}, info, party };
  }

  /** A phone number no other account of the file holds. */
  const newPhone = () => ({ value: `7999${String(Math.floor(Math.random() * 1e7)).padStart(7, "0")}`, verified: true });

  it("releases the claims named for the ID token and for userinfo, each where it was asked, with scope openid alone", async () => {
    const phone = newPhone();
    const account = await seedAccount({ given_name: "Vera", family_name: "Orlova", phone_number: phone }, PASSWORD);
    const claims = JSON.stringify({
      id_token: { name: { essential: true }, phone_number: null, shoe_size: null },
      userinfo: { email: null, email_verified: { essential: false } },
    });
    const { claims: id, info, party } = await signedInWith(account.sub, { scope: "openid", claims });
    expect(party.config.serverMetadata().claims_parameter_supported).toBe(true);
    expect(id).toMatchObject({ name: expect.stringMatching(/^Vera .*Orlova$/), phone_number: phone.value });
    expect(id).not.toHaveProperty("email");
    expect(id).not.toHaveProperty("shoe_size");
    expect(info).toEqual({ sub: account.sub, email: account.email?.value, email_verified: true });
  });

  it("the phone scope releases the phone claims of an account that has a phone, in the ID token and userinfo", async () => {
    const phone = newPhone();
    const account = await seedAccount({ phone_number: phone }, PASSWORD);
    const { claims: id, info } = await signedInWith(account.sub, { scope: "openid phone" });
    const expected = { phone_number: phone.value, phone_number_verified: true };
    expect(id).toMatchObject(expected);
    expect(info).toEqual({ sub: account.sub, ...expected });
  });

  it("a claims parameter that is not a JSON object of objects is invalid_request at the client", async () => {
    const { config, redirectUri } = await relyingParty();
    for (const claims of [
      "{not json",
      "[]",
      JSON.stringify({ id_token: ["name"] }),
      JSON.stringify({ userinfo: { email: 1 } }),
      "x".repeat(5000),
    ]) {
      const started = await startAuthorization(config, redirectUri, { claims });
      const answer = await fetch(started.url, { redirect: "manual" });
      expect(answer.status).toBe(303);
      const back = new URL(answer.headers.get("location") ?? "");
      expect(back.searchParams.get("error"), claims.slice(0, 40)).toBe("invalid_request");
      expect(back.searchParams.get("state")).toBe(started.state);
    }
  });
});

describe("ID token signing", () => {
  /** Signs `login` in through the browser as `rp` and exchanges the code with openid-client. */
  async function codeFlowTokens(party: Awaited<ReturnType<typeof relyingParty>>, login: string) {
    const started = await startAuthorization(party.config, party.redirectUri);
    const { context, page } = await fillSignInForm(started.url, login);
    const callback = await backAtClient(page);
    await context.close();
    return oidc.authorizationCodeGrant(party.config, callback, {
      pkceCodeVerifier: started.verifier,
      expectedState: started.state,
      expectedNonce: started.nonce,
    });
  }

  it("signs RS256 for a client that registered no algorithm and ES256 for one that registered it; access tokens stay ES256", async () => {
    const account = await seedAccount({}, PASSWORD);
    const jwks = createRemoteJWKSet(new URL(`${issuer}/.well-known/jwks.json`));
    for (const [party, alg] of [
      [await relyingParty(), "RS256"],
      [await relyingParty({ idTokenAlg: "ES256" }), "ES256"],
    ] as const) {
      const tokens = await codeFlowTokens(party, account.sub);
      // openid-client checked the signature and the algorithm the client expects.
      expect(tokens.claims()).toMatchObject({ sub: account.sub, aud: party.clientId });
      const idToken = tokens.id_token as string;
      expect(decodeProtectedHeader(idToken)).toMatchObject({ alg, typ: "JWT" });
      const { payload } = await jwtVerify(idToken, jwks, { algorithms: [alg], issuer, audience: party.clientId });
      // at_hash is the left half of SHA-256 for both algorithms.
      const digest = createHash("sha256").update(tokens.access_token).digest().subarray(0, 16);
      expect(payload.at_hash).toBe(digest.toString("base64url"));
      expect(decodeProtectedHeader(tokens.access_token)).toMatchObject({ alg: "ES256", typ: "at+jwt" });
      // The ID token works as id_token_hint whatever its algorithm: the session ends.
      const logout = oidc.buildEndSessionUrl(party.config, {
        id_token_hint: idToken,
        post_logout_redirect_uri: `${rp.url()}/bye`,
      });
      const answer = await fetch(logout, { redirect: "manual" });
      expect(answer.status).toBe(303);
      expect(answer.headers.get("location")).toMatch(new RegExp(`^${rp.url()}/bye`));
    }
    const { keys } = (await (await fetch(`${issuer}/.well-known/jwks.json`)).json()) as {
      keys: Record<string, string>[];
    };
    expect(keys.map((k) => k.alg)).toEqual(expect.arrayContaining(["RS256", "ES256"]));
    const rsa = keys.find((k) => k.alg === "RS256");
    expect(rsa).toMatchObject({ kty: "RSA", use: "sig", e: "AQAB" });
    expect(Buffer.from(rsa?.n ?? "", "base64url").length * 8).toBe(2048);
    for (const key of keys)
      for (const secret of ["d", "p", "q", "dp", "dq", "qi"]) expect(key).not.toHaveProperty(secret);
  });

  it("the password grant takes the OIDC scopes client libraries add, and its ID token passes openid-client's default metadata", async () => {
    const account = await seedAccount({ given_name: "Olga" }, PASSWORD);
    const { config, clientId } = await relyingParty();
    const tokens = await oidc.genericGrantRequest(config, "password", {
      username: account.sub,
      password: PASSWORD,
      scope: "openid profile email offline_access svc_api_user",
    });
    expect(decodeProtectedHeader(tokens.id_token as string).alg).toBe("RS256");
    expect(tokens.scope?.split(" ").sort()).toEqual(["email", "offline_access", "openid", "profile", "svc_api_user"]);
    // The OIDC scopes release their claims, as in the code flow.
    expect(tokens.claims()).toMatchObject({
      sub: account.sub,
      aud: clientId,
      iss: issuer,
      given_name: "Olga",
      email: account.email?.value,
      email_verified: true,
    });
    expect(tokens.claims()?.ua_id).toBeTypeOf("string");
    // The access token opens userinfo (openid) and the user's own account (svc_api_user).
    expect(await oidc.fetchUserInfo(config, tokens.access_token, account.sub)).toMatchObject({ given_name: "Olga" });
    const own = await fetch(`${issuer}/api/v3/users/${account.sub}`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(own.status).toBe(200);
    // Still only user permissions the client holds: a system permission is refused.
    await expect(
      oidc.genericGrantRequest(config, "password", {
        username: account.sub,
        password: PASSWORD,
        scope: "openid svc_api_sys_users",
      }),
    ).rejects.toMatchObject({ error: "invalid_scope" });
  });
});

describe("sign-in with a password and TOTP", () => {
  it("signs in, exchanges the code, reads userinfo, refreshes, introspects, and logs out", async () => {
    const account = await seedAccount({ requiredFactor: 2 }, PASSWORD);
    const { base32Secret } = await issueSecret(totpDeps(), account);
    await attachGenerator(totpDeps(), account.sub, { base32Secret, otpCode: totpCode(base32Secret, -30) });
    const { config, redirectUri } = await relyingParty();
    const started = await startAuthorization(config, redirectUri);

    const context = await browser().newContext({ locale: "en-US" });
    const page = await context.newPage();
    const first = await page.goto(started.url.toString());
    expect(first?.headers()["content-security-policy"]).toContain("frame-ancestors 'none'");
    await page.getByLabel(/login/i).fill(account.email?.value as string);
    await page.getByLabel(/^password$/i).fill(PASSWORD);
    await submit(page);
    // The second factor is asked for, alone: the proved password waits in the sealed interaction.
    expect(await alertText(page)).toMatch(/authenticator/);
    expect(await page.getByLabel(/authenticator app/i).getAttribute("autocomplete")).toBe("one-time-code");
    expect(await page.getByLabel(/password/i).count()).toBe(0);
    expect(await page.getByLabel(/login/i).count()).toBe(0);
    await page.getByLabel(/authenticator app/i).fill(totpCode(base32Secret));
    await submit(page);
    const callback = await backAtClient(page);
    expect(callback.searchParams.get("iss")).toBe(issuer);
    const cookies = await context.cookies();
    const sso = cookies.find((c) => c.name === "svc_sso");
    expect(sso).toMatchObject({ httpOnly: true, sameSite: "Lax" });

    const tokens = await oidc.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: started.verifier,
      expectedState: started.state,
      expectedNonce: started.nonce,
    });
    const claims = tokens.claims();
    expect(claims).toMatchObject({ sub: account.sub, iss: issuer, nonce: started.nonce, amr: ["pwd", "otp", "mfa"] });
    expect(claims?.at_hash).toBeTypeOf("string");
    expect(claims?.sid).toBeTypeOf("string");

    const info = await oidc.fetchUserInfo(config, tokens.access_token, account.sub);
    expect(info).toMatchObject({
      sub: account.sub,
      email: account.email?.value,
      email_verified: true,
      family_name: "Ivanov",
      given_name: "Ivan",
    });
    expect(info.phone_number).toBeUndefined();

    // The browser session is one of the account's sessions, on a recorded device.
    const sessions = await services().sessions.listSessions(account.sub);
    expect(sessions.map((s) => s.clientId).sort()).toEqual(["svc-hosted", config.clientMetadata().client_id].sort());
    const devices = await services().sessions.listDevices(account.sub);
    expect(devices).toHaveLength(1);

    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token as string);
    expect(refreshed.access_token).not.toBe(tokens.access_token);
    expect((await oidc.tokenIntrospection(config, refreshed.access_token)).active).toBe(true);

    // A second sign-in from the same browser needs no form: the session answers.
    const again = await startAuthorization(config, redirectUri, { prompt: "none" });
    await page.goto(again.url.toString());
    expect((await backAtClient(page)).searchParams.get("code")).toBeTruthy();

    const logout = oidc.buildEndSessionUrl(config, {
      id_token_hint: tokens.id_token as string,
      post_logout_redirect_uri: `${rp.url()}/bye`,
      state: "bye-state",
    });
    await page.goto(logout.toString());
    const bye = await backAtClient(page);
    expect(bye.pathname).toBe("/bye");
    expect(bye.searchParams.get("state")).toBe("bye-state");
    // The browser session and the sessions opened from it have ended.
    expect((await oidc.tokenIntrospection(config, refreshed.refresh_token as string)).active).toBe(false);
    expect(await services().sessions.listSessions(account.sub)).toEqual([]);
    const afterLogout = await startAuthorization(config, redirectUri, { prompt: "none" });
    await page.goto(afterLogout.url.toString());
    expect((await backAtClient(page)).searchParams.get("error")).toBe("login_required");
    await context.close();
  });
});

describe("forced password change", () => {
  it("asks for a new password under the policy and signs in with it", async () => {
    const account = await seedAccount({ needPasswordChange: true }, PASSWORD);
    const { config, redirectUri } = await relyingParty();
    const started = await startAuthorization(config, redirectUri);
    const context = await browser().newContext({ locale: "ru-RU" });
    const page = await context.newPage();
    await page.goto(started.url.toString());
    await page.getByLabel(/логин/i).fill(account.sub);
    await page.getByLabel(/^пароль$/i).fill(PASSWORD);
    await page.getByRole("button", { name: "Войти" }).click();
    expect(await alertText(page)).toContain("сменить");
    expect(await page.getByLabel("Новый пароль").getAttribute("autocomplete")).toBe("new-password");
    // The new password alone: the current one was proved on the page before.
    expect(await page.getByLabel("Текущий пароль").count()).toBe(0);
    await page.getByLabel("Новый пароль").fill("short");
    await page.getByRole("button", { name: "Войти" }).click();
    expect(await alertText(page)).toContain("не короче");
    await page.getByLabel("Новый пароль").fill("a brand new passphrase 42");
    await page.getByRole("button", { name: "Войти" }).click();
    const callback = await backAtClient(page);
    await oidc.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: started.verifier,
      expectedState: started.state,
      expectedNonce: started.nonce,
    });
    const stored = await services().accounts.get(account.sub);
    expect(stored?.needPasswordChange).toBeFalsy();
    await context.close();
  });
});

describe("error paths", () => {
  it("shows an error page, not a redirect, for an unregistered redirect URI", async () => {
    const { config } = await relyingParty();
    const started = await startAuthorization(config, `${rp.url()}/elsewhere`);
    const hits = rp.hits.length;
    const page = await browser().newPage();
    const answer = await page.goto(started.url.toString());
    expect(answer?.status()).toBe(400);
    expect(page.url()).toContain("/svc/oauth/authorize");
    expect(rp.hits.length).toBe(hits);
    await page.close();
  });

  it("refuses a public client's request without PKCE at its redirect URI", async () => {
    const { config, redirectUri } = await relyingParty({ public: true });
    const url = oidc.buildAuthorizationUrl(config, { redirect_uri: redirectUri, scope: "openid", state: "s1" });
    const answer = await fetch(url, { redirect: "manual" });
    expect(answer.status).toBe(303);
    const location = new URL(answer.headers.get("location") as string);
    expect(location.searchParams.get("error")).toBe("invalid_request");
    expect(location.searchParams.get("state")).toBe("s1");
  });

  it("refuses a request object by value and by reference, each with its own error at the redirect URI", async () => {
    const { config, redirectUri } = await relyingParty();
    const unsigned = `${Buffer.from('{"alg":"none"}').toString("base64url")}.${Buffer.from('{"scope":"openid"}').toString("base64url")}.`;
    for (const [parameter, value, error] of [
      ["request", unsigned, "request_not_supported"],
      ["request_uri", `${rp.url()}/request.jwt`, "request_uri_not_supported"],
    ]) {
      const url = oidc.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope: "openid",
        state: `s-${parameter}`,
        [parameter]: value,
      });
      const hits = rp.hits.length;
      const answer = await fetch(url, { redirect: "manual" });
      expect(answer.status).toBe(303);
      const location = new URL(answer.headers.get("location") as string);
      expect(`${location.origin}${location.pathname}`).toBe(redirectUri);
      expect(location.searchParams.get("error")).toBe(error);
      expect(location.searchParams.get("state")).toBe(`s-${parameter}`);
      // The reference is never fetched.
      expect(rp.hits.length).toBe(hits);
    }
  });

  it("answers login_required to prompt=none without a session", async () => {
    const { config, redirectUri } = await relyingParty();
    const started = await startAuthorization(config, redirectUri, { prompt: "none" });
    const answer = await fetch(started.url, { redirect: "manual" });
    const location = new URL(answer.headers.get("location") as string);
    expect(location.searchParams.get("error")).toBe("login_required");
    expect(location.searchParams.get("state")).toBe(started.state);
  });

  it("revokes what a code gave when the code comes back, and refuses a replayed state", async () => {
    const account = await seedAccount({}, PASSWORD);
    const { config, redirectUri } = await relyingParty({ public: true });
    const started = await startAuthorization(config, redirectUri);
    const { context, page } = await fillSignInForm(started.url, account.sub);
    const callback = await backAtClient(page);
    const checks = { pkceCodeVerifier: started.verifier, expectedState: started.state, expectedNonce: started.nonce };
    const tokens = await oidc.authorizationCodeGrant(config, callback, checks);
    await expect(oidc.authorizationCodeGrant(config, callback, checks)).rejects.toMatchObject({
      error: "invalid_grant",
    });
    // The first exchange's session has ended: its refresh token no longer works.
    await expect(oidc.refreshTokenGrant(config, tokens.refresh_token as string)).rejects.toMatchObject({
      error: "invalid_grant",
    });
    // The relying party refuses a callback whose state is not the one it sent.
    await expect(
      oidc.authorizationCodeGrant(config, callback, { ...checks, expectedState: oidc.randomState() }),
    ).rejects.toSatisfy((error: Error) =>
      /state/.test(String((error.cause as Error | undefined)?.message ?? error.cause)),
    );
    await context.close();
  });

  it("refuses a wrong PKCE verifier", async () => {
    const account = await seedAccount({}, PASSWORD);
    const { config, redirectUri } = await relyingParty();
    const started = await startAuthorization(config, redirectUri);
    const { context, page } = await fillSignInForm(started.url, account.sub);
    const callback = await backAtClient(page);
    await expect(
      oidc.authorizationCodeGrant(config, callback, {
        pkceCodeVerifier: oidc.randomPKCECodeVerifier(),
        expectedState: started.state,
        expectedNonce: started.nonce,
      }),
    ).rejects.toMatchObject({ error: "invalid_grant" });
    await context.close();
  });

  it("does not say whether an account exists", async () => {
    const { config, redirectUri } = await relyingParty();
    const started = await startAuthorization(config, redirectUri);
    const { context, page } = await fillSignInForm(started.url, uniqueId("nobody-"));
    expect(await alertText(page)).toBe("The login or the password is wrong.");
    await context.close();
  });
});

describe("third-party clients and ending sessions", () => {
  it("asks a third-party client's consent once, records it, and withdrawing it ends the client's tokens", async () => {
    const account = await seedAccount({}, PASSWORD);
    const { config, redirectUri, clientId } = await relyingParty({ firstParty: false });
    const started = await startAuthorization(config, redirectUri);
    const { context, page } = await fillSignInForm(started.url, account.sub);
    await page.getByRole("button", { name: "Allow" }).waitFor();
    expect(await page.getByRole("listitem").allTextContents()).toEqual([
      "know who you are",
      "see your name",
      "see your e-mail address",
      "use the permission svc_api_user",
    ]);
    await page.getByRole("button", { name: "Allow" }).click();
    const tokens = await oidc.authorizationCodeGrant(config, await backAtClient(page), {
      pkceCodeVerifier: started.verifier,
      expectedState: started.state,
      expectedNonce: started.nonce,
    });
    const consents = await services().consents.list(account.sub);
    const consent = consents.find((c) => c.client_id === clientId);
    expect(consent?.scopes.sort()).toEqual(["email", "openid", "profile", "svc_api_user"]);

    // Granted once: the next authorization goes straight back with a code.
    const again = await startAuthorization(config, redirectUri, { prompt: "none" });
    await page.goto(again.url.toString());
    expect((await backAtClient(page)).searchParams.get("code")).toBeTruthy();

    const withdrawn = await fetch(`${issuer}/api/v3/users/${account.sub}/acls/${consent?.id}`, {
      method: "DELETE",
      headers: { authorization: await systemBearer(["svc_api_sys_usec_chg"]) },
    });
    expect(withdrawn.status).toBe(204);
    expect((await oidc.tokenIntrospection(config, tokens.access_token)).active).toBe(false);
    await context.close();
  });

  it("answers inactive and login_required once the account's sessions are reset", async () => {
    const account = await seedAccount({}, PASSWORD);
    const { config, redirectUri } = await relyingParty();
    const started = await startAuthorization(config, redirectUri);
    const { context, page } = await fillSignInForm(started.url, account.phone_number?.value as string);
    const tokens = await oidc.authorizationCodeGrant(config, await backAtClient(page), {
      pkceCodeVerifier: started.verifier,
      expectedState: started.state,
      expectedNonce: started.nonce,
    });
    expect(await oidc.tokenIntrospection(config, tokens.access_token)).toMatchObject({
      active: true,
      sub: account.sub,
      client_id: config.clientMetadata().client_id,
    });
    const reset = await fetch(`${issuer}/api/v3/users/${account.sub}/sessions/reset`, {
      method: "POST",
      headers: { authorization: await systemBearer(["svc_api_sys_usec_chg"]) },
    });
    expect(reset.status).toBe(204);
    expect((await oidc.tokenIntrospection(config, tokens.access_token)).active).toBe(false);
    expect((await oidc.tokenIntrospection(config, tokens.refresh_token as string)).active).toBe(false);
    const silent = await startAuthorization(config, redirectUri, { prompt: "none" });
    await page.goto(silent.url.toString());
    expect((await backAtClient(page)).searchParams.get("error")).toBe("login_required");
    await context.close();
  });

  it("keeps the password grant for clients registered for it only", async () => {
    const { config } = await relyingParty({ public: true });
    const answer = await fetch(config.serverMetadata().token_endpoint as string, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "password",
        client_id: config.clientMetadata().client_id,
        username: "x",
        password: "y",
        scope: "svc_api_user",
      }),
    });
    expect(answer.status).toBe(400);
    expect(await answer.json()).toMatchObject({ error: "unauthorized_client" });
  });
});
