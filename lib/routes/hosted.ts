import type { AuthenticationResponseJSON } from "@simplewebauthn/server";
import { compactVerify, decodeJwt, decodeProtectedHeader } from "jose";
import { config } from "../config/current";
import { loginDeps, passkeyDeps, passwordLoginDeps, services } from "../container";
import type { Account } from "../domain/accounts/account";
import { OAuthError } from "../domain/errors";
import { authenticateUser, passwordAmr } from "../domain/login/password-grant";
import { AuthorizationError, type AuthorizationRequest, redirectWith } from "../domain/oidc/authorization-request";
import { HOSTED_CLIENT, type LiveBrowserSession } from "../domain/oidc/browser-session";
import { issueCode } from "../domain/oidc/code-grant";
import { passkeySecondFactor } from "../domain/passkeys/passkeys";
import { COOKIES, csrfMatches, openInteraction, pageResult, readCookie, seeOther, setCookie } from "../http/browser";
import { type CommonCall, group, route } from "../http/route";
import { errorPage } from "../pages/error";
import { loggedOutPage, logoutPage } from "../pages/logout";
import type { SignInStep } from "../pages/sign-in";
import { TEXT } from "../pages/text";
import { hostedAccountRoutes } from "./hosted-accounts";
import { hostedFederationRoutes } from "./hosted-federation";
import {
  answeringErrors,
  answerSignedIn,
  backToClient,
  browserOf,
  credentialOf,
  definedOnly,
  errorBack,
  expiredForm,
  formRequest,
  formState,
  interactionFields,
  languageFor,
  loadRequest,
  now,
  signInBrowser,
  signInPageFor,
} from "./hosted-flow";
import { hostedPasskeyRoutes } from "./hosted-passkeys";
import { hostedQrRoutes } from "./hosted-qr";

/** The hosted sign-in pages (docs/sign-in.md): the authorization endpoint and its forms. */

/** Every parameter is read as text and checked by parseAuthorizationRequest. */
const authorizationQuery = {
  type: "object",
  properties: Object.fromEntries(
    [
      "response_type",
      "client_id",
      "redirect_uri",
      "scope",
      "state",
      "nonce",
      "code_challenge",
      "code_challenge_method",
      "prompt",
      "max_age",
      "login_hint",
      "ui_locales",
      "id_token_hint",
      "resource",
      "response_mode",
      "request",
      "request_uri",
    ].map((name) => [name, { type: "string", maxLength: 8192 }]),
  ),
} as const;

/** The `sub` of an ID token we signed, whatever its age (OIDC Core 3.1.2.1 id_token_hint). */
async function hintedSubject(token: string | undefined): Promise<{ sub: string; aud: string } | undefined> {
  if (!token) return undefined;
  try {
    const { kid } = decodeProtectedHeader(token);
    const key = kid ? await services().keyRing.verificationKey(kid) : undefined;
    if (!key) return undefined;
    await compactVerify(token, key);
    const claims = decodeJwt(token);
    if (claims.iss !== config().issuer || typeof claims.sub !== "string") return undefined;
    const aud = Array.isArray(claims.aud) ? claims.aud[0] : claims.aud;
    return typeof aud === "string" ? { sub: claims.sub, aud } : undefined;
  } catch {
    return undefined;
  }
}

/** Whether the browser's session may answer this request without asking the user. */
async function usableSession(browser: LiveBrowserSession | undefined, request: AuthorizationRequest): Promise<boolean> {
  if (!browser) return false;
  if (request.prompt.includes("login")) return false;
  const authTime = browser.session.authTime ?? browser.session.createdAt;
  if (request.maxAge !== undefined && now() - authTime > request.maxAge) return false;
  const hint = await hintedSubject(request.idTokenHint);
  return !hint || hint.sub === browser.account.sub;
}

const authorize = route({
  id: "hosted.authorize",
  method: "GET",
  path: "/svc/oauth/authorize",
  version: "page",
  auth: "none",
  summary: "Authorization endpoint (OAuth 2.0, OpenID Connect): code flow with PKCE",
  description:
    "response_type=code with client_id, redirect_uri (exact match), scope, state, nonce, code_challenge and code_challenge_method=S256 (required of public clients), prompt (none, login, consent), max_age, login_hint, ui_locales, id_token_hint, resource. Answers the sign-in page, the consent page, or a redirect to the client with code, state and iss. An unknown client or redirect URI gets an error page, never a redirect.",
  tags: ["sign-in"],
  request: { query: authorizationQuery },
  responses: {
    200: { description: "Sign-in or consent page", contentType: "text/html" },
    303: { description: "Back to the client with a code or an error" },
    400: { description: "Error page: unknown client or redirect URI", contentType: "text/html" },
  },
  handler: async (call) => {
    const query = definedOnly(call.query);
    const lang = languageFor(call, query);
    return answeringErrors(lang, async () => {
      const { client, request } = await loadRequest(query);
      const browser = await browserOf(call);
      if (browser && (await usableSession(browser, request)))
        return await answerSignedIn(call, client, request, query, browser, []);
      if (request.prompt.includes("none")) {
        return errorBack(
          new AuthorizationError(
            new OAuthError("login_required", "the user is not signed in"),
            request.redirectUri,
            request.state,
          ),
        );
      }
      const form = await formState(query, readCookie(call.cookies, COOKIES.csrf));
      const page = await signInPageFor({
        lang,
        state: form.state,
        clientName: request.clientId,
        step: "password",
        loginHint: request.loginHint,
      });
      return pageResult(200, page, form.cookies);
    });
  },
});

/** The form fields of the sign-in page; every one is checked by the sign-in itself. */
const signInForm = {
  type: "object",
  properties: {
    ...interactionFields,
    username: { type: "string", maxLength: 256 },
    password: { type: "string", maxLength: 1024 },
    otp: { type: "string", maxLength: 16 },
    recovery_code: { type: "string", maxLength: 32 },
    otp_channel: { enum: ["email", "sms"] },
    passkey: { type: "string", maxLength: 16384 },
    new_password: { type: "string", maxLength: 1024 },
  },
} as const;

/** What the sign-in page says for each refusal, and which fields it asks for next. */
const REFUSALS: Record<string, { step: SignInStep; message: keyof (typeof TEXT)["en"] & string }> = {
  invalid_credential: { step: "password", message: "wrongCredentials" },
  throttled: { step: "password", message: "throttled" },
  otp_required: { step: "otp", message: "otpRequired" },
  otp_invalid: { step: "otp", message: "otpInvalid" },
  otp_sent: { step: "otp", message: "otpSentEmail" },
  otp_channel_unavailable: { step: "otp", message: "otpChannelUnavailable" },
  too_many_codes: { step: "otp", message: "tooManyCodes" },
  otp_not_sent: { step: "otp", message: "otpNotSent" },
  password_change_required: { step: "change", message: "changeRequired" },
  password_policy: { step: "change", message: "policy" },
  account_locked: { step: "password", message: "refused" },
  inactivity_lock: { step: "password", message: "refused" },
  method_locked: { step: "password", message: "refused" },
};

const signIn = route({
  id: "hosted.sign-in",
  method: "POST",
  path: "/svc/oauth/signin",
  version: "page",
  auth: "none",
  summary:
    "The sign-in form: login and password, then a second factor (TOTP, a code sent by e-mail or SMS, a recovery code) or a new password when required",
  description:
    "Checked exactly like the password grant (throttling, locks, second factor, forced change). On success the browser session cookie is set and the browser goes on to the consent page or back to the client.",
  tags: ["sign-in"],
  request: { body: { contentType: "form", schema: signInForm, required: true } },
  responses: {
    200: { description: "The form again, with what is missing", contentType: "text/html" },
    303: { description: "Signed in: on to the client" },
    400: { description: "Expired or forged form", contentType: "text/html" },
  },
  handler: async (call) => {
    const lang = call.language;
    return answeringErrors(lang, async () => {
      const found = await formRequest(call, call.body);
      if (!found) return expiredForm(lang);
      const { query, client, request } = found;
      const pageLang = languageFor(call, query);
      const form = call.body;
      const ip = call.sourceIp ?? "unknown";
      const userAgent = call.userAgent ?? "unknown";
      const login = passwordLoginDeps();
      // Only the sign-in page can run a passkey ceremony, so only it wires the check.
      const deps = {
        ...login,
        secondFactor: login.secondFactor && {
          ...login.secondFactor,
          passkey: (account: Account, proof: { response: AuthenticationResponseJSON; binding: string }) =>
            passkeySecondFactor(passkeyDeps(), account.sub, proof),
        },
      };
      const username = typeof form.username === "string" ? form.username : "";
      const passkey = credentialOf<AuthenticationResponseJSON>(form.passkey);
      try {
        const user = await authenticateUser(
          client,
          {
            username,
            password: typeof form.password === "string" ? form.password : "",
            otp: form.otp,
            recoveryCode: form.recovery_code,
            otpChannel: form.otp_channel,
            // The page's challenge is bound to the browser's CSRF token, which formRequest checked.
            passkey: passkey && { response: passkey, binding: form.csrf as string },
            language: pageLang,
            newPassword: form.new_password,
            ip,
            // The browser is the caller here: only its connection's address counts.
            addresses: [call.connectionIp ?? ip],
            userAgent,
          },
          deps,
          now(),
        );
        return await signInBrowser(call, found, user.account, {
          amr: passwordAmr(user),
          method: "password",
          factor: user.secondFactor?.method,
          deps,
          newCredential: user.newCredential,
          attempt: user.attempt,
          items: user.loginItems,
        });
      } catch (error) {
        if (!(error instanceof OAuthError)) throw error;
        // A hook's refusal (its own words) or failure (503): shown on the page, the login kept as a hint.
        if (error.reason === "hook_failed" || error.reason === "sign_in_refused") {
          const page = await signInPageFor({
            lang: pageLang,
            state: { interaction: form.interaction as string, csrf: form.csrf as string },
            clientName: request.clientId,
            step: "password",
            loginHint: username,
            problem: error.reason === "hook_failed" ? TEXT[pageLang].hookFailed : error.description,
          });
          return pageResult(error.status === 503 ? 503 : 403, page);
        }
        if (error.code !== "invalid_grant") throw error;
        const refusal = REFUSALS[error.reason ?? ""] ?? REFUSALS.invalid_credential;
        const message =
          error.reason === "otp_sent" && form.otp_channel === "sms"
            ? "otpSentSms"
            : error.reason === "otp_invalid" && passkey
              ? "passkeyRefused"
              : refusal.message;
        const keepLogin = refusal.step !== "password";
        const state = { interaction: form.interaction as string, csrf: form.csrf as string };
        const page = await signInPageFor({
          lang: pageLang,
          state,
          clientName: request.clientId,
          step: refusal.step,
          ...(keepLogin ? { username } : { loginHint: username }),
          ...(error.reason === "otp_sent" ? { notice: TEXT[pageLang][message] as string } : { message }),
          violations: error.violations,
        });
        return pageResult(refusal.step === "password" ? 401 : 200, page);
      }
    });
  },
});

const consentForm = {
  type: "object",
  properties: { ...interactionFields, decision: { enum: ["allow", "deny"] } },
} as const;

const logoutForm = { type: "object", properties: interactionFields } as const;

const consent = route({
  id: "hosted.consent",
  method: "POST",
  path: "/svc/oauth/consent",
  version: "page",
  auth: "none",
  summary: "The consent form of a third-party client: allow records a consent (acls), deny answers access_denied",
  tags: ["sign-in"],
  request: { body: { contentType: "form", schema: consentForm, required: true } },
  responses: {
    303: { description: "Back to the client with a code or access_denied" },
    400: { description: "Expired or forged form, or no signed-in browser", contentType: "text/html" },
  },
  handler: async (call) => {
    const lang = call.language;
    return answeringErrors(lang, async () => {
      const found = await formRequest(call, call.body);
      const browser = await browserOf(call);
      if (!found || !browser) return expiredForm(lang);
      const { request } = found;
      const sub = browser.account.sub;
      const decision = call.body.decision === "allow" ? "allow" : "deny";
      await services().events.record({
        sbj: sub,
        ts: Date.now(),
        type: "consent",
        cId: request.clientId,
        ip: call.sourceIp,
        ua: call.userAgent,
        sid: browser.session.sid,
        result: decision === "allow" ? "ok" : "denied",
        prms: { scopes: request.scopes },
      });
      if (decision === "deny") {
        const denied = new OAuthError("access_denied", "the user denied the request");
        return errorBack(new AuthorizationError(denied, request.redirectUri, request.state));
      }
      await loginDeps().logins.commit([
        services().consents.grantItem(sub, request.clientId, request.scopes, Date.now()),
      ]);
      const code = await issueCode(services().codes, request, browser, now());
      return backToClient(request.redirectUri, { code, state: request.state });
    });
  },
});

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

/** Where the browser goes after logout: only a URI registered for the client (no open redirect). */
async function logoutTarget(query: Record<string, string>): Promise<{ uri?: string; valid: boolean; sub?: string }> {
  const hint = await hintedSubject(query.id_token_hint);
  const clientId = hint?.aud ?? query.client_id;
  if (query.post_logout_redirect_uri === undefined) return { valid: true, sub: hint?.sub };
  const client = clientId ? await services().clients.get(clientId) : undefined;
  const valid = client?.postLogoutRedirectUris.includes(query.post_logout_redirect_uri) ?? false;
  return {
    uri: valid ? redirectWith(query.post_logout_redirect_uri, { state: query.state }) : undefined,
    valid,
    sub: hint?.sub,
  };
}

/** Ends the browser session and every session opened from it, and forgets the cookie. */
async function signOut(call: CommonCall, browser: LiveBrowserSession | undefined): Promise<string[]> {
  if (browser) {
    const sid = browser.session.sid;
    await services().sessions.endSessionsAndDevices(
      browser.account.sub,
      { session: (s) => s.sid === sid || s.browserSid === sid, device: () => false },
      () => [
        services().events.putItem({
          sbj: browser.account.sub,
          ts: Date.now(),
          type: "logout",
          cId: HOSTED_CLIENT,
          ip: call.sourceIp,
          ua: call.userAgent,
          sid,
          result: "ok",
        }),
      ],
    );
  }
  return [setCookie(COOKIES.session, "", 0)];
}

const logoutStart = route({
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
    const target = await logoutTarget(query);
    if (!target.valid) return pageResult(400, errorPage(lang, TEXT[lang].badRedirect));
    const browser = await browserOf(call);
    if (browser && target.sub !== browser.account.sub) {
      const form = await formState(query, readCookie(call.cookies, COOKIES.csrf));
      return pageResult(200, logoutPage(lang, form.state), form.cookies);
    }
    const cookies = await signOut(call, browser);
    return target.uri ? seeOther(target.uri, cookies) : pageResult(200, loggedOutPage(lang), cookies);
  },
});

const logoutConfirm = route({
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
    const lang = call.language;
    const csrf = readCookie(call.cookies, COOKIES.csrf);
    const query = csrfMatches(csrf, call.body.csrf)
      ? await openInteraction(call.body.interaction, csrf as string, now())
      : undefined;
    if (!query) return expiredForm(lang);
    const target = await logoutTarget(query);
    const cookies = await signOut(call, await browserOf(call));
    return target.uri
      ? seeOther(target.uri, cookies)
      : pageResult(200, loggedOutPage(languageFor(call, query)), cookies);
  },
});

export const hostedRoutes = group("hosted", [
  authorize,
  signIn,
  consent,
  logoutStart,
  logoutConfirm,
  ...hostedAccountRoutes,
  ...hostedFederationRoutes,
  ...hostedQrRoutes,
  ...hostedPasskeyRoutes,
]);
