import type { LiveBrowserSession } from "../../domain/oidc/browser-session";
import { COOKIES, pageResult, readCookie, seeOther, setCookie } from "../../http/browser";
import { type CommonCall, type HttpResult, route } from "../../http/route";
import { errorPage } from "../../pages/error";
import { loggedOutPage, logoutPage } from "../../pages/logout";
import { TEXT } from "../../pages/text";
import { browserOf, definedOnly, expiredForm, formState, hostedForm, languageFor, openForm } from "./answers";
import type { HostedUseCases } from "./use-cases";

/** RP-initiated logout (docs/sign-in.md). */

const logoutQuery = {
  type: "object",
  properties: {
    id_token_hint: { type: "string", maxLength: 8192 },
    post_logout_redirect_uri: { type: "string", maxLength: 2048 },
    state: { type: "string", maxLength: 1024 },
    client_id: { type: "string", maxLength: 128 },
    ui_locales: { type: "string", maxLength: 64 },
  },
} as const;

const logoutForm = hostedForm({});

/** Ends the browser session (and every session opened from it), forgets the cookie, and goes where the target says. */
async function signedOut(
  uc: HostedUseCases,
  call: CommonCall,
  browser: LiveBrowserSession | undefined,
  target: { uri?: string },
  lang: "ru" | "en",
): Promise<HttpResult> {
  if (browser) await uc.authorization.signOut(browser, { ip: call.sourceIp, userAgent: call.userAgent });
  const cookies = [setCookie(COOKIES.session, "", 0)];
  return target.uri ? seeOther(target.uri, cookies) : pageResult(200, loggedOutPage(lang), cookies);
}

const logoutStart = (uc: HostedUseCases) =>
  route({
    id: "hosted.logout",
    method: "GET",
    path: "/svc/oauth/logout",
    version: "page",
    auth: "none",
    summary: "RP-initiated logout (end_session_endpoint)",
    description:
      "With an id_token_hint of the signed-in user the browser session ends at once; otherwise the user confirms on a page. post_logout_redirect_uri must be registered for the client the hint (or client_id) names; state comes back with it.",
    tags: ["sign-in"],
    request: { query: logoutQuery },
    responses: {
      200: { description: "Confirmation page, or signed out", contentType: "text/html" },
      303: { description: "Signed out: to the registered post-logout URI" },
      400: { description: "Unregistered post-logout URI", contentType: "text/html" },
    },
    handler: async (call) => {
      const query = definedOnly(call.query);
      const lang = languageFor(call, query);
      const target = await uc.authorization.logoutTarget(query);
      if (!target.valid) return pageResult(400, errorPage(lang, TEXT[lang].badRedirect));
      const browser = await browserOf(uc, call);
      if (browser && target.sub !== browser.account.sub) {
        const form = await formState(query, readCookie(call.cookies, COOKIES.csrf));
        return pageResult(200, logoutPage(lang, form.state), form.cookies);
      }
      return signedOut(uc, call, browser, target, lang);
    },
  });

const logoutConfirm = (uc: HostedUseCases) =>
  route({
    id: "hosted.logout-confirm",
    method: "POST",
    path: "/svc/oauth/logout",
    version: "page",
    auth: "none",
    summary: "Logout confirmed by the user",
    tags: ["sign-in"],
    request: { body: { contentType: "form", schema: logoutForm, required: true } },
    responses: {
      200: { description: "Signed out", contentType: "text/html" },
      303: { description: "Signed out: to the registered post-logout URI" },
      400: { description: "Expired or forged form", contentType: "text/html" },
    },
    handler: async (call) => {
      const form = await openForm(call, call.body);
      if (!form) return expiredForm(call.language);
      const target = await uc.authorization.logoutTarget(form.query);
      return signedOut(uc, call, await browserOf(uc, call), target, languageFor(call, form.query));
    },
  });

export const logoutRoutes = (uc: HostedUseCases) => [logoutStart(uc), logoutConfirm(uc)];
