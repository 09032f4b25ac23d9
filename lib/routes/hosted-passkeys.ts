import type { AuthenticationResponseJSON, RegistrationResponseJSON } from "@simplewebauthn/server";
import { metrics, passkeyDeps, recoveryCodeDeps, services } from "../container";
import { OAuthError } from "../domain/errors";
import { countSignIn } from "../domain/login/password-grant";
import { verifyUserPassword } from "../domain/login/verify-user-password";
import { HOSTED_CLIENT, type LiveBrowserSession } from "../domain/oidc/browser-session";
import {
  addPasskey,
  checkPasskey,
  deletePasskey,
  isPasskeyRefusal,
  registrationOptions,
} from "../domain/passkeys/passkeys";
import { generateRecoveryCodes, recoveryCodeStatus } from "../domain/security/recovery-codes";
import { COOKIES, csrfMatches, openInteraction, pageResult, readCookie, seeOther } from "../http/browser";
import { type CommonCall, type HttpResult, route } from "../http/route";
import { accountPage } from "../pages/account";
import { errorPage } from "../pages/error";
import SCRIPT from "../pages/passkeys-script.txt";
import { type Language, TEXT, type Texts } from "../pages/text";
import {
  answeringErrors,
  browserOf,
  credentialOf,
  expiredForm,
  formRequest,
  formState,
  interactionFields,
  languageFor,
  now,
  signInProblem,
  signInVouched,
} from "./hosted-flow";

/** Passkeys on the hosted pages (docs/passkeys.md): sign-in with a passkey alone, and the account page. */

/** RFC 8176: a key held by an authenticator, used with user verification (so, two factors). */
const PASSKEY_AMR = ["hwk", "user", "mfa"];

/** A change of passkeys from a sign-in older than this asks for the password again. */
const RECENT_SIGN_IN_SECONDS = 600;

const script = route({
  id: "hosted.passkeys-script",
  method: "GET",
  path: "/svc/oauth/passkeys.js",
  version: "page",
  auth: "none",
  summary: "The hosted pages' passkey script (WebAuthn ceremonies, passkey autofill)",
  tags: ["sign-in"],
  responses: { 200: { description: "JavaScript", contentType: "text/javascript" } },
  handler: async () => ({
    statusCode: 200,
    headers: {
      "content-type": "text/javascript; charset=utf-8",
      "cache-control": "public, max-age=3600",
      "x-content-type-options": "nosniff",
    },
    body: SCRIPT,
  }),
});

const passkeySignInForm = {
  type: "object",
  properties: { ...interactionFields, credential: { type: "string", maxLength: 16384 } },
} as const;

const passkeySignIn = route({
  id: "hosted.passkey-sign-in",
  method: "POST",
  path: "/svc/oauth/passkey",
  version: "page",
  auth: "none",
  summary: "Sign in with a passkey alone (discoverable credential, user verified)",
  description:
    "credential is the JSON of the browser's answer to the sign-in page's request options, whose challenge is bound to the browser's CSRF token and taken once. The passkey's account is signed in (amr hwk, user, mfa), also when it requires a second factor.",
  tags: ["sign-in"],
  request: { body: { contentType: "form", schema: passkeySignInForm, required: true } },
  responses: {
    200: { description: "The sign-in page with why the passkey did not sign in", contentType: "text/html" },
    303: { description: "Signed in: on to the client" },
    400: { description: "Expired or forged form", contentType: "text/html" },
  },
  handler: async (call) =>
    answeringErrors(call.language, async () => {
      const found = await formRequest(call, call.body);
      if (!found) return expiredForm(call.language);
      const { query } = found;
      const lang = languageFor(call, query);
      const t = TEXT[lang];
      const state = { interaction: call.body.interaction as string, csrf: call.body.csrf as string };
      const credential = credentialOf<AuthenticationResponseJSON>(call.body.credential);
      if (!credential) return signInProblem(lang, state, query.client_id, t.passkeyMissing);
      try {
        const proof = await checkPasskey(passkeyDeps(), credential, state.csrf);
        return await signInVouched(call, { query, state, lang }, proof.account.sub, {
          account: proof.account,
          amr: PASSKEY_AMR,
          method: "passkey",
          items: proof.writes,
        });
      } catch (error) {
        const problem = isPasskeyRefusal(error) ? error.error : undefined;
        // The login's commit refuses a challenge taken meanwhile or a counter moved on: a replay.
        const replayed = error instanceof OAuthError && error.code === "invalid_grant";
        if (!problem && !replayed) throw error;
        countSignIn({ metrics }, "passkey", problem ?? "replayed");
        return signInProblem(
          lang,
          state,
          query.client_id,
          problem === "unknown_passkey" ? t.passkeyUnknown : t.passkeyRefused,
        );
      }
    }),
});

/** The account page's forms carry an interaction with no request: only the CSRF binding counts. */
async function accountForm(call: CommonCall, form: Readonly<Record<string, unknown>>) {
  const csrf = readCookie(call.cookies, COOKIES.csrf);
  if (!csrfMatches(csrf, form.csrf)) return undefined;
  return (await openInteraction(form.interaction, csrf as string, now())) ? (csrf as string) : undefined;
}

const signedIn = (browser: LiveBrowserSession) => browser.session.authTime ?? browser.session.createdAt;
const recent = (browser: LiveBrowserSession) => now() - signedIn(browser) <= RECENT_SIGN_IN_SECONDS;

/**
 * A change from an older sign-in needs the account's password, counted like any password
 * guess; the browser session already passed the account's second factor.
 */
async function provedAgain(call: CommonCall, browser: LiveBrowserSession, password: unknown): Promise<boolean> {
  if (recent(browser)) return true;
  const sub = browser.account.sub;
  const logins = services().logins;
  const verdict = await verifyUserPassword(
    logins,
    sub,
    typeof password === "string" ? password : "",
    [call.connectionIp || "unknown"],
    now(),
  );
  if (!verdict.ok || verdict.account.sub !== sub) return false;
  await logins.giveBack(verdict.attempt, true);
  return true;
}

async function showAccount(
  call: CommonCall,
  lang: Language,
  browser: LiveBrowserSession,
  status: number,
  message: { notice?: string; problem?: string; newCodes?: string[] } = {},
): Promise<HttpResult> {
  const form = await formState({}, readCookie(call.cookies, COOKIES.csrf));
  const sub = browser.account.sub;
  const [{ passkeys, options }, codes] = await Promise.all([
    registrationOptions(passkeyDeps(), sub, `${sub}/${form.state.csrf}`),
    recoveryCodeStatus(recoveryCodeDeps(), sub),
  ]);
  const { newCodes, ...said } = message;
  const page = accountPage({
    lang,
    state: form.state,
    passkeys,
    creationOptions: JSON.stringify(options),
    confirm: !recent(browser),
    recovery: { remaining: codes.remaining, ...(newCodes && { newCodes }) },
    ...said,
  });
  return pageResult(status, page, form.cookies);
}

const signedOut = (lang: Language) => pageResult(401, errorPage(lang, TEXT[lang].accountSignedOut));

const accountQuery = {
  type: "object",
  properties: {
    ui_locales: { type: "string", maxLength: 64 },
    done: { enum: ["added", "deleted"], description: "the change just made, announced on the page" },
  },
} as const;

const account = route({
  id: "hosted.account",
  method: "GET",
  path: "/svc/oauth/account",
  version: "page",
  auth: "none",
  summary: "The signed-in user's passkeys: list, add, delete",
  description:
    "Needs the hosted browser session. A change from a sign-in older than 10 minutes asks for the account's password again.",
  tags: ["sign-in"],
  request: { query: accountQuery },
  responses: {
    200: { description: "The account page", contentType: "text/html" },
    401: { description: "Not signed in", contentType: "text/html" },
  },
  handler: async (call) => {
    const lang = languageFor(call, { ui_locales: call.query.ui_locales });
    const browser = await browserOf(call);
    if (!browser) return signedOut(lang);
    const done = call.query.done;
    const t = TEXT[lang];
    const notice = done === "added" ? t.passkeyAdded : done === "deleted" ? t.passkeyDeleted : undefined;
    return showAccount(call, lang, browser, 200, notice ? { notice } : {});
  },
});

/** Who changed the passkeys, for the change's security event. */
const pageActor = (call: CommonCall, browser: LiveBrowserSession) => ({
  ts: Date.now(),
  cId: HOSTED_CLIENT,
  ip: call.sourceIp,
  ua: call.userAgent,
  sid: browser.session.sid,
});

/**
 * A change on the account page: a signed-in browser, the page's own form, a recent sign-in or
 * the password again; then the page, with the change's notice or why it was refused.
 */
async function accountChange(
  call: CommonCall,
  form: Readonly<Record<string, unknown>>,
  change: (
    browser: LiveBrowserSession,
    csrf: string,
    t: Texts,
  ) => Promise<{ done: "added" | "deleted" } | { newCodes: string[] } | { problem: string }>,
): Promise<HttpResult> {
  const lang = call.language;
  const browser = await browserOf(call);
  if (!browser) return signedOut(lang);
  const csrf = await accountForm(call, form);
  if (!csrf) return expiredForm(lang);
  const t = TEXT[lang];
  if (!(await provedAgain(call, browser, form.password)))
    return showAccount(call, lang, browser, 400, { problem: t.confirmFailed });
  const outcome = await change(browser, csrf, t);
  // After a change the browser gets the page by GET, so a reload does not post the change again.
  if ("done" in outcome) return seeOther(`/svc/oauth/account?done=${outcome.done}`);
  // New recovery codes are shown this once, so that answer is the page itself (never cached).
  return showAccount(call, lang, browser, "newCodes" in outcome ? 200 : 400, outcome);
}

const addForm = {
  type: "object",
  properties: {
    ...interactionFields,
    credential: { type: "string", maxLength: 131072 },
    name: { type: "string", maxLength: 64 },
    password: { type: "string", maxLength: 1024 },
  },
} as const;

const addOnPage = route({
  id: "hosted.account-passkey-add",
  method: "POST",
  path: "/svc/oauth/account/passkeys",
  version: "page",
  auth: "none",
  summary: "Enrol a passkey from the account page",
  tags: ["sign-in"],
  request: { body: { contentType: "form", schema: addForm, required: true } },
  responses: {
    303: { description: "Added: to the account page, which says so" },
    400: { description: "The account page with why not, or an expired form", contentType: "text/html" },
    401: { description: "Not signed in", contentType: "text/html" },
  },
  handler: (call) =>
    accountChange(call, call.body, async (browser, csrf, t) => {
      const credential = credentialOf<RegistrationResponseJSON>(call.body.credential);
      if (!credential) return { problem: t.passkeyMissing };
      const sub = browser.account.sub;
      const name = call.body.name?.trim();
      try {
        await addPasskey(
          passkeyDeps(),
          sub,
          { response: credential, ...(name && { name }) },
          `${sub}/${csrf}`,
          pageActor(call, browser),
        );
        return { done: "added" };
      } catch (error) {
        if (!isPasskeyRefusal(error)) throw error;
        return { problem: t.passkeyRefused };
      }
    }),
});

const deleteForm = {
  type: "object",
  properties: {
    ...interactionFields,
    id: { type: "string", maxLength: 1000 },
    password: { type: "string", maxLength: 1024 },
  },
} as const;

const deleteOnPage = route({
  id: "hosted.account-passkey-delete",
  method: "POST",
  path: "/svc/oauth/account/passkeys/delete",
  version: "page",
  auth: "none",
  summary: "Delete a passkey from the account page",
  tags: ["sign-in"],
  request: { body: { contentType: "form", schema: deleteForm, required: true } },
  responses: {
    303: { description: "Deleted: to the account page, which says so" },
    400: { description: "The account page with why not, or an expired form", contentType: "text/html" },
    401: { description: "Not signed in", contentType: "text/html" },
  },
  handler: (call) =>
    accountChange(call, call.body, async (browser, _csrf, t) => {
      try {
        await deletePasskey(services(), browser.account.sub, call.body.id ?? "", pageActor(call, browser));
        return { done: "deleted" };
      } catch (error) {
        if (!isPasskeyRefusal(error)) throw error;
        return { problem: t.passkeyUnknown };
      }
    }),
});

const recoveryForm = {
  type: "object",
  properties: { ...interactionFields, password: { type: "string", maxLength: 1024 } },
} as const;

const recoveryOnPage = route({
  id: "hosted.account-recovery-codes",
  method: "POST",
  path: "/svc/oauth/account/recovery-codes",
  version: "page",
  auth: "none",
  summary: "Create a new set of recovery codes from the account page (shown once; the old set stops working)",
  tags: ["sign-in"],
  request: { body: { contentType: "form", schema: recoveryForm, required: true } },
  responses: {
    200: { description: "The account page with the new codes, this once", contentType: "text/html" },
    400: { description: "The account page with why not, or an expired form", contentType: "text/html" },
    401: { description: "Not signed in", contentType: "text/html" },
  },
  handler: (call) =>
    accountChange(call, call.body, async (browser) => {
      const context = { cId: HOSTED_CLIENT, ip: call.sourceIp, ua: call.userAgent };
      const made = await generateRecoveryCodes(recoveryCodeDeps(), browser.account.sub, context, now());
      return { newCodes: made.codes };
    }),
});

export const hostedPasskeyRoutes = [script, passkeySignIn, account, addOnPage, deleteOnPage, recoveryOnPage];
