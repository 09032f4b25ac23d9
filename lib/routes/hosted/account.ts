import type { RegistrationResponseJSON } from "@simplewebauthn/server";
import { HOSTED_CLIENT, type LiveBrowserSession } from "../../domain/oidc/browser-session";
import { isPasskeyRefusal } from "../../domain/passkeys/passkeys";
import { COOKIES, csrfMatches, openSignIn, pageResult, readCookie, seeOther } from "../../http/browser";
import { type CommonCall, type HttpResult, route } from "../../http/route";
import { accountPage } from "../../pages/account";
import { errorPage } from "../../pages/error";
import { type Language, TEXT, type Texts } from "../../pages/text";
import { browserOf, credentialOf, expiredForm, formState, hostedForm, languageFor, now } from "./answers";
import type { HostedUseCases } from "./use-cases";

/** The hosted account page (docs/passkeys.md): passkeys and recovery codes of the signed-in user. */

/** A change of passkeys from a sign-in older than this asks for the password again. */
const RECENT_SIGN_IN_SECONDS = 600;

const signedInAt = (browser: LiveBrowserSession) => browser.session.authTime ?? browser.session.createdAt;
const recent = (browser: LiveBrowserSession) => now() - signedInAt(browser) <= RECENT_SIGN_IN_SECONDS;

/** The account page's forms carry an interaction with no request: only the CSRF binding counts. */
async function accountForm(call: CommonCall, form: { interaction: string; csrf: string }) {
  const csrf = readCookie(call.cookies, COOKIES.csrf);
  if (!csrf || !csrfMatches(csrf, form.csrf)) return undefined;
  return (await openSignIn(form.interaction, csrf, now())) ? csrf : undefined;
}

async function showAccount(
  uc: HostedUseCases,
  call: CommonCall,
  lang: Language,
  browser: LiveBrowserSession,
  status: number,
  message: { notice?: string; problem?: string; newCodes?: string[] } = {},
): Promise<HttpResult> {
  const form = await formState({}, readCookie(call.cookies, COOKIES.csrf));
  const sub = browser.account.sub;
  const shown = await uc.accountPage.view(sub, `${sub}/${form.state.csrf}`);
  const { newCodes, ...said } = message;
  const page = accountPage({
    lang,
    state: form.state,
    passkeys: shown.passkeys,
    creationOptions: JSON.stringify(shown.options),
    confirm: !recent(browser),
    recovery: { remaining: shown.remaining, ...(newCodes && { newCodes }) },
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

const account = (uc: HostedUseCases) =>
  route({
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
      const browser = await browserOf(uc, call);
      if (!browser) return signedOut(lang);
      const done = call.query.done;
      const t = TEXT[lang];
      const notice = done === "added" ? t.passkeyAdded : done === "deleted" ? t.passkeyDeleted : undefined;
      return showAccount(uc, call, lang, browser, 200, notice ? { notice } : {});
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

type Outcome = { done: "added" | "deleted" } | { newCodes: string[] } | { problem: string };

/**
 * A change on the account page: a signed-in browser, the page's own form, a recent sign-in or
 * the password again (counted like any password guess; the session already passed the second factor).
 */
async function accountChange(
  uc: HostedUseCases,
  call: CommonCall,
  form: { interaction: string; csrf: string; password?: string },
  change: (browser: LiveBrowserSession, csrf: string, t: Texts) => Promise<Outcome>,
): Promise<HttpResult> {
  const lang = call.language;
  const browser = await browserOf(uc, call);
  if (!browser) return signedOut(lang);
  const csrf = await accountForm(call, form);
  if (!csrf) return expiredForm(lang);
  const t = TEXT[lang];
  const addresses = [call.connectionIp || "unknown"];
  const proved =
    recent(browser) || (await uc.accountPage.provedAgain(browser.account.sub, form.password ?? "", addresses, now()));
  if (!proved) return showAccount(uc, call, lang, browser, 400, { problem: t.confirmFailed });
  const outcome = await change(browser, csrf, t);
  // After a change the browser gets the page by GET, so a reload does not post the change again.
  if ("done" in outcome) return seeOther(`/svc/oauth/account?done=${outcome.done}`);
  // New recovery codes are shown this once, so that answer is the page itself (never cached).
  return showAccount(uc, call, lang, browser, "newCodes" in outcome ? 200 : 400, outcome);
}

/** A passkey refusal as the page's problem; anything else is thrown on. */
async function refusedAs(problem: string, change: () => Promise<Outcome>): Promise<Outcome> {
  try {
    return await change();
  } catch (error) {
    if (!isPasskeyRefusal(error)) throw error;
    return { problem };
  }
}

const accountResponses = {
  303: { description: "Changed: to the account page, which says so" },
  400: { description: "The account page with why not, or an expired form", contentType: "text/html" },
  401: { description: "Not signed in", contentType: "text/html" },
} as const;

const addForm = hostedForm({
  credential: { type: "string", maxLength: 131072 },
  name: { type: "string", maxLength: 64 },
  password: { type: "string", maxLength: 1024 },
});

const addOnPage = (uc: HostedUseCases) =>
  route({
    id: "hosted.account-passkey-add",
    method: "POST",
    path: "/svc/oauth/account/passkeys",
    version: "page",
    auth: "none",
    summary: "Enrol a passkey from the account page",
    tags: ["sign-in"],
    request: { body: { contentType: "form", schema: addForm, required: true } },
    responses: accountResponses,
    handler: (call) =>
      accountChange(uc, call, call.body, async (browser, csrf, t) => {
        const credential = credentialOf<RegistrationResponseJSON>(call.body.credential);
        if (!credential) return { problem: t.passkeyMissing };
        const sub = browser.account.sub;
        const name = call.body.name?.trim();
        const input = { response: credential, ...(name && { name }) };
        return refusedAs(t.passkeyRefused, async () => {
          await uc.accountPage.add(sub, input, `${sub}/${csrf}`, pageActor(call, browser));
          return { done: "added" };
        });
      }),
  });

const deleteForm = hostedForm({
  id: { type: "string", maxLength: 1000 },
  password: { type: "string", maxLength: 1024 },
});

const deleteOnPage = (uc: HostedUseCases) =>
  route({
    id: "hosted.account-passkey-delete",
    method: "POST",
    path: "/svc/oauth/account/passkeys/delete",
    version: "page",
    auth: "none",
    summary: "Delete a passkey from the account page",
    tags: ["sign-in"],
    request: { body: { contentType: "form", schema: deleteForm, required: true } },
    responses: accountResponses,
    handler: (call) =>
      accountChange(uc, call, call.body, async (browser, _csrf, t) =>
        refusedAs(t.passkeyUnknown, async () => {
          await uc.accountPage.remove(browser.account.sub, call.body.id ?? "", pageActor(call, browser));
          return { done: "deleted" };
        }),
      ),
  });

const recoveryForm = hostedForm({ password: { type: "string", maxLength: 1024 } });

const recoveryOnPage = (uc: HostedUseCases) =>
  route({
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
      accountChange(uc, call, call.body, async (browser) => {
        const context = { cId: HOSTED_CLIENT, ip: call.sourceIp, ua: call.userAgent };
        const made = await uc.accountPage.newRecoveryCodes(browser.account.sub, context, now());
        return { newCodes: made.codes };
      }),
  });

export const accountRoutes = (uc: HostedUseCases) => [account(uc), addOnPage(uc), deleteOnPage(uc), recoveryOnPage(uc)];
