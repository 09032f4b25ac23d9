import { afterEach, describe, expect, it } from "vitest";
import { totpDeps } from "../../lib/container";
import { BRUTE_FORCE } from "../../lib/domain/login/brute-force";
import { attachGenerator, issueSecret } from "../../lib/domain/security/totp-generators";
import { openSignIn, sealInteraction } from "../../lib/http/browser";
import { TEXT } from "../../lib/pages/text";
import { keys } from "../../lib/store/keys";
import { createClient, seedAccount } from "../support/fixtures";
import { scriptHook, useScriptedHooks } from "../support/hooks";
import { PASSWORD, useHostedSignIn } from "../support/hosted-sign-in";
import { httpBrowser } from "../support/http-browser";
import { passwordLogin } from "../support/login";
import { useSettings } from "../support/oauth-provider";
import { storedItem, storedItems } from "../support/stored";
import { totpCode } from "../support/totp-codes";

/**
 * The sign-in's steps over plain HTTP (docs/sign-in.md): a proved password waits in the
 * sealed interaction, so the second-factor page asks for the code alone; that state is
 * bound to the browser and expires; codes typed at that step are throttled like guesses;
 * the hosted form and the password grant refuse alike, since they share the flow.
 */

const { relyingParty, startAuthorization } = await useHostedSignIn();
const T = TEXT.en;

/** A first-party client's sign-in page, opened in a fresh browser. */
async function signInPage() {
  const { config, redirectUri } = await relyingParty();
  const started = await startAuthorization(config, redirectUri, { ui_locales: "en" });
  const page = httpBrowser();
  await page.open(started.url);
  const signIn = new URL("/svc/oauth/signin", started.url);
  const post = (form: Record<string, string>) => page.post(signIn, { ...page.fields, ...form });
  return { page, post, signIn };
}

/** An account with a TOTP generator, whose sign-in needs the code. */
async function twoFactorAccount() {
  const account = await seedAccount({ requiredFactor: 2 }, PASSWORD);
  const { base32Secret } = await issueSecret(totpDeps(), account);
  await attachGenerator(totpDeps(), account.sub, { base32Secret, otpCode: totpCode(base32Secret, -30) });
  return { account, secret: base32Secret };
}

const consecutiveFailures = async (sub: string) =>
  ((await storedItem(keys.loginFailures(sub)))?.count as number | undefined) ?? 0;

describe("the second-factor step", () => {
  it("asks for the code alone once the password is proved, and the code signs in", async () => {
    const { account, secret } = await twoFactorAccount();
    const { page, post } = await signInPage();
    const first = page.fields.interaction;
    const step = await post({ username: account.sub, password: PASSWORD });
    expect(step.status).toBe(200);
    expect(step.html).toContain(T.otpRequired);
    expect(step.html).toContain('name="otp"');
    expect(step.html).not.toContain('name="password"');
    expect(step.html).not.toContain('name="username"');
    // The page's interaction now carries the paused sign-in.
    expect(page.fields.interaction).not.toBe(first);
    const done = await post({ otp: totpCode(secret) });
    expect(done.status).toBe(303);
    expect(done.location).toContain("code=");
  });

  it("answers the expired-form page when the paused sign-in comes from another browser", async () => {
    const { account, secret } = await twoFactorAccount();
    const { page, post } = await signInPage();
    await post({ username: account.sub, password: PASSWORD });
    const stolen = page.fields.interaction;
    // Another browser: its own CSRF cookie and token, the first browser's sealed state.
    const other = await signInPage();
    const answer = await other.page.post(other.signIn, {
      interaction: stolen,
      csrf: other.page.fields.csrf,
      otp: totpCode(secret),
    });
    expect(answer.status).toBe(400);
    expect(answer.html).toContain(T.sessionEnded);
    expect(await storedItems(account.sub, "SESSION#")).toEqual([]);
  });

  it("answers the expired-form page when the paused sign-in is older than its ten minutes", async () => {
    const { account, secret } = await twoFactorAccount();
    const { page, post } = await signInPage();
    await post({ username: account.sub, password: PASSWORD });
    const { csrf } = page.fields;
    const now = Math.floor(Date.now() / 1000);
    const opened = await openSignIn(page.fields.interaction, csrf, now);
    expect(opened?.paused).toMatchObject({ sub: account.sub, method: "password", amr: ["pwd"] });
    // The same state sealed as the server seals it, its password proved eleven minutes ago.
    const paused = { ...(opened?.paused as NonNullable<typeof opened>["paused"] & object), at: now - 11 * 60 };
    const old = await sealInteraction(opened?.query ?? {}, csrf, now, paused);
    const answer = await post({ interaction: old, otp: totpCode(secret) });
    expect(answer.status).toBe(400);
    expect(answer.html).toContain(T.sessionEnded);
  });

  it("counts each wrong code like a wrong password, so the waits bind codes too", async () => {
    const { account, secret } = await twoFactorAccount();
    const { post } = await signInPage();
    await post({ username: account.sub, password: PASSWORD });
    // The password step left one consecutive failure standing (a right password with no code yet).
    expect(await consecutiveFailures(account.sub)).toBe(1);
    const wrong = await post({ otp: "000000" });
    expect(wrong.status).toBe(200);
    expect(wrong.html).toContain(T.otpInvalid);
    expect(await consecutiveFailures(account.sub)).toBe(2);
    for (let n = 2; n < BRUTE_FORCE.FREE_FAILURES; n++) await post({ otp: "000000" });
    expect(await consecutiveFailures(account.sub)).toBe(BRUTE_FORCE.FREE_FAILURES);
    // The wait now runs: even the right code is not tried.
    const refused = await post({ otp: totpCode(secret) });
    expect(refused.status).toBe(401);
    expect(refused.html).toContain(T.throttled);
    expect(await storedItems(account.sub, "SESSION#")).toEqual([]);
  }, 60_000);
});

describe("the forced change step", () => {
  it("asks for the new password alone and refuses the current one as the new", async () => {
    const account = await seedAccount({ needPasswordChange: true }, PASSWORD);
    const { post } = await signInPage();
    const step = await post({ username: account.sub, password: PASSWORD });
    expect(step.html).toContain('name="new_password"');
    expect(step.html).not.toContain('name="password"');
    const same = await post({ new_password: PASSWORD });
    expect(same.status).toBe(200);
    expect(same.html).toContain(T.policy);
    const done = await post({ new_password: "a brand new passphrase 42" });
    expect(done.status).toBe(303);
  });
});

describe("the hosted form and the password grant refuse alike (one flow)", () => {
  afterEach(() => useSettings({}));

  const refusals = async (sub: string) =>
    (await storedItems(sub, "EVENT#"))
      .filter((e) => e.type === "login" && e.result !== "ok")
      .map((e) => [e.result, (e.prms as { method: string }).method]);

  it("refuses a locked account's right password on both, recorded the same way", async () => {
    const account = await seedAccount({ locked: true }, PASSWORD);
    const { post } = await signInPage();
    const page = await post({ username: account.sub, password: PASSWORD });
    expect(page.status).toBe(401);
    expect(page.html).toContain(T.refused);
    const client = await createClient(["svc_api_user"]);
    const grant = await passwordLogin(client, { username: account.sub, password: PASSWORD, scope: "svc_api_user" });
    expect(grant.statusCode).toBe(400);
    expect(grant.json).toEqual({ error: "invalid_grant", error_description: "the account is locked" });
    expect(await refusals(account.sub)).toEqual([
      ["account_locked", "password"],
      ["account_locked", "password"],
    ]);
  });

  it("refuses what preSignIn refuses on both, with the hook's words, recorded the same way", async () => {
    useScriptedHooks({ preSignIn: 500 });
    scriptHook("preSignIn", () => ({ action: "deny", message: "Closed for maintenance" }));
    const account = await seedAccount({}, PASSWORD);
    const { post } = await signInPage();
    const page = await post({ username: account.sub, password: PASSWORD });
    expect(page.status).toBe(403);
    expect(page.html).toContain("Closed for maintenance");
    const client = await createClient(["svc_api_user"]);
    const grant = await passwordLogin(client, { username: account.sub, password: PASSWORD, scope: "svc_api_user" });
    expect(grant.statusCode).toBe(400);
    expect(grant.json).toEqual({ error: "invalid_grant", error_description: "Closed for maintenance" });
    expect(await refusals(account.sub)).toEqual([
      ["sign_in_refused", "password"],
      ["sign_in_refused", "password"],
    ]);
  });
});
