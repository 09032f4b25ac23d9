import * as oidc from "openid-client";
import { describe, expect, it, vi } from "vitest";
import { setEnvDefaults } from "../../lib/config";
import { recoveryCodeDeps } from "../../lib/container";
import type { Account } from "../../lib/domain/accounts/account";
import { useRecoveryCode } from "../../lib/domain/security/recovery-codes";
import { keys } from "../../lib/store/keys";
import { seedAccount, systemBearer, uniqueId } from "../support/fixtures";
import { PASSWORD, useHostedSignIn } from "../support/hosted-sign-in";
import { request } from "../support/requests";
import { useSsoOrganizations } from "../support/sso-organization";
import { storedItems } from "../support/stored";
import { virtualAuthenticator } from "../support/virtual-authenticator";

const tokenClaims = (tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>) => tokens.claims();

/**
 * Passkeys on the hosted pages, in a real chromium with the DevTools protocol's virtual
 * authenticator (a platform authenticator with resident keys and user verification).
 * The issuer is named localhost: browsers refuse an IP address as RP ID.
 */

const { issuer, relyingParty, startAuthorization, fillSignInForm, alertText, backAtClient, submit } =
  await useHostedSignIn("localhost");
const { ssoOrganization } = await useSsoOrganizations();

async function tokensFor(
  config: oidc.Configuration,
  callback: URL,
  started: { verifier: string; state: string; nonce: string },
) {
  return oidc.authorizationCodeGrant(config, callback, {
    pkceCodeVerifier: started.verifier,
    expectedState: started.state,
    expectedNonce: started.nonce,
  });
}

/** Signs in with the password, adds a virtual authenticator, and enrols a passkey in the account console. */
async function enrolPasskey(name: string, overrides: Partial<Account> = {}) {
  const account = await seedAccount(overrides, PASSWORD);
  const { config, redirectUri } = await relyingParty();
  const started = await startAuthorization(config, redirectUri);
  const { context, page } = await fillSignInForm(started.url, account.email?.value as string);
  await backAtClient(page);
  const authenticator = await virtualAuthenticator(context, page);
  await page.goto(`${issuer}/account/sign-in-methods`);
  await expect(page.getByText("You have no passkeys yet.")).toBeTruthy();
  await page.getByLabel("Name of the new passkey").fill(name);
  await page.getByRole("button", { name: "Add a passkey" }).click();
  await page.getByRole("status").filter({ hasText: "The passkey was added." }).waitFor();
  return { account, config, redirectUri, context, page, authenticator };
}

describe("passkeys on the hosted pages", () => {
  it("enrols a passkey from the account console: stored, listed, and held by the authenticator", async () => {
    const { account, page, authenticator, context } = await enrolPasskey("laptop");
    expect(await page.getByRole("status").textContent()).toBe("The passkey was added.");
    expect(await page.locator("ul.items > li").first().textContent()).toContain("laptop");
    // The change ended in a redirect, so a reload reads the page and posts nothing again.
    expect(new URL(page.url()).pathname + new URL(page.url()).search).toBe(
      "/svc/account/sign-in-methods?done=passkey-added",
    );
    expect((await page.reload())?.status()).toBe(200);
    const stored = await storedItems(account.sub, keys.passkeyPrefix);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ name: "laptop", entity: "passkey" });
    const held = await authenticator.credentials();
    expect(held).toHaveLength(1);
    expect(held[0]).toMatchObject({ isResidentCredential: true, rpId: "localhost" });
    expect(Buffer.from(held[0].userHandle as string, "base64").toString()).toBe(account.sub);
    expect(Buffer.from(held[0].credentialId, "base64").toString("base64url")).toBe(stored[0].id);
    await context.close();
  });

  it("signs in from the login field's autofill (conditional mediation): no password, amr says a verified key", async () => {
    const { account, config, redirectUri, context, page } = await enrolPasskey("phone");
    await context.clearCookies();
    const started = await startAuthorization(config, redirectUri);
    await page.goto(started.url.toString());
    // The page asks for passkeys in the autofill at once; the virtual authenticator picks the only one.
    const callback = await backAtClient(page);
    expect(tokenClaims(await tokensFor(config, callback, started))).toMatchObject({
      sub: account.sub,
      amr: ["hwk", "user", "mfa"],
    });
    const [stored] = await storedItems(account.sub, keys.passkeyPrefix);
    expect(stored.lastUsed).toEqual(expect.any(Number));
    const logins = (await storedItems(account.sub, "EVENT#")).filter((e) => e.type === "login");
    expect(logins).toContainEqual(expect.objectContaining({ result: "ok", prms: { method: "passkey" } }));
    await context.close();
  });

  it("signs in with the passkey button, the login field offering passkeys in its autofill", async () => {
    const { account, config, redirectUri, context, page, authenticator } = await enrolPasskey("tablet");
    await context.clearCookies();
    await authenticator.answers(false);
    const started = await startAuthorization(config, redirectUri);
    await page.goto(started.url.toString());
    expect(await page.getByLabel(/login/i).getAttribute("autocomplete")).toBe("username webauthn");
    expect(await page.evaluate("PublicKeyCredential.isConditionalMediationAvailable()")).toBe(true);
    await authenticator.answers(true);
    await page.getByRole("button", { name: "Sign in with a passkey" }).click();
    const callback = await backAtClient(page);
    expect(tokenClaims(await tokensFor(config, callback, started))).toMatchObject({ sub: account.sub });
    await context.close();
  });

  it("refuses the passkey of an account whose e-mail domain an organization then enforces its single sign-on on, recording why", async () => {
    const orgId = uniqueId("org-");
    const email = { value: `${uniqueId("key-")}@${orgId}.example.org`, verified: true };
    const { account, config, redirectUri, context, page } = await enrolPasskey("work key", { email });
    await ssoOrganization(orgId);
    await context.clearCookies();
    const started = await startAuthorization(config, redirectUri);
    await page.goto(started.url.toString());
    await page.getByRole("button", { name: "Sign in with a passkey" }).click();
    expect(await alertText(page)).toMatch(/Your organization signs you in/);
    expect((await context.cookies()).some((c) => c.name === "svc_sso")).toBe(false);
    const logins = (await storedItems(account.sub, "EVENT#")).filter((e) => e.type === "login");
    expect(logins.map((e) => [e.result, (e.prms as { method: string }).method])).toContainEqual([
      "org_sso_required",
      "passkey",
    ]);
    await context.close();
  });

  it("removes the passkey in the account console, after which signing in with it is refused", async () => {
    const { account, config, redirectUri, context, page } = await enrolPasskey("old key");
    await page.getByRole("button", { name: "Remove old key" }).click();
    await page.getByRole("status").filter({ hasText: "The passkey was removed." }).waitFor();
    expect(await storedItems(account.sub, keys.passkeyPrefix)).toEqual([]);
    await context.clearCookies();
    const started = await startAuthorization(config, redirectUri);
    // Metrics on for the refusal: its count is an EMF line on stdout.
    vi.stubEnv("POWERTOOLS_METRICS_DISABLED", "false");
    setEnvDefaults({});
    const out = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
    try {
      // The autofill request answers with the deleted passkey at once.
      await page.goto(started.url.toString());
      await page.waitForURL(/\/oauth\/passkey$/);
      expect(await alertText(page)).toBe(
        "This passkey is not registered for any account here (it may have been deleted).",
      );
      const counts = out.mock.calls.map(([line]) => String(line)).filter((line) => line.includes('"SignIn"'));
      expect(counts.map((line) => JSON.parse(line))).toContainEqual(
        expect.objectContaining({ function: "hosted", method: "passkey", result: "unknown_passkey", SignIn: 1 }),
      );
    } finally {
      out.mockRestore();
      vi.unstubAllEnvs();
      setEnvDefaults({});
    }
    expect((await storedItems(account.sub, "EVENT#")).filter((e) => e.type === "login")).toHaveLength(1);
    await context.close();
  });

  it("serves as the second factor after the password, and counts as one for requiredFactor 2", async () => {
    const { account, config, redirectUri, context, page, authenticator } = await enrolPasskey("key");
    // A passkey is a second-factor method: requiredFactor 2 is accepted with no TOTP.
    const modes = await request("security", "events/security/auth-change.json", {
      params: { subjectId: account.sub },
      body: { requiredFactor: 2 },
      authorization: await systemBearer(["svc_api_sys_usec_chg"]),
    });
    expect(modes.json).toMatchObject({ requiredFactor: 2 });
    await context.clearCookies();
    await authenticator.answers(false);
    const started = await startAuthorization(config, redirectUri);
    await page.goto(started.url.toString());
    await page.getByLabel(/login/i).fill(account.email?.value as string);
    await page.getByLabel(/^password$/i).fill(PASSWORD);
    await submit(page);
    await page.getByRole("button", { name: "Use a passkey instead of a code" }).waitFor();
    await authenticator.answers(true);
    await page.getByRole("button", { name: "Use a passkey instead of a code" }).click();
    const callback = await backAtClient(page);
    expect(tokenClaims(await tokensFor(config, callback, started))).toMatchObject({
      sub: account.sub,
      amr: ["pwd", "hwk", "user", "mfa"],
    });
    const logins = (await storedItems(account.sub, "EVENT#")).filter((e) => e.type === "login");
    // Events of one second sort by a random id, so look for it rather than at the last one.
    expect(logins).toContainEqual(
      expect.objectContaining({ result: "ok", prms: { method: "password", factor: "passkey" } }),
    );
    await context.close();
  });

  it("creates recovery codes in the account console, shows them once, and a new set ends the old one", async () => {
    const { account, context, page } = await enrolPasskey("for codes");
    await page.getByRole("button", { name: "Create new recovery codes" }).click();
    await page.getByText("Save these codes now").waitFor();
    const codes = await page.locator("ol.codes code").allTextContents();
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    const caller = { cId: "test", ip: "127.0.0.1", ua: "test" };
    const now = Math.floor(Date.now() / 1000);
    expect(await useRecoveryCode(recoveryCodeDeps(), account.sub, codes[0], caller, now)).toBe(true);
    // Read again, the page shows how many are left, never the codes.
    await page.goto(`${issuer}/account/sign-in-methods`);
    expect(await page.getByText(/9 of 10 recovery codes left/).count()).toBe(1);
    expect(await page.locator("ol.codes").count()).toBe(0);
    await page.getByRole("button", { name: "Create new recovery codes" }).click();
    await page.getByText("Save these codes now").waitFor();
    expect(await useRecoveryCode(recoveryCodeDeps(), account.sub, codes[1], caller, now)).toBe(false);
    expect((await storedItems(account.sub, "EVENT#")).filter((e) => e.type === "recovery_codes_generate")).toHaveLength(
      2,
    );
    await context.close();
  });
});
