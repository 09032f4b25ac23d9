import { config } from "../config/current";
import { relyingParty } from "../config/settings";
import { loginDeps, passkeyDeps, services } from "../container";
import type { Account } from "../domain/accounts/account";
import type { ClientRecord } from "../domain/clients/client";
import { OAuthError, oauthDescription } from "../domain/errors";
import {
  countSignIn,
  type LoginDeps,
  type NewCredential,
  recordLogin,
  recordRefusedSignIn,
} from "../domain/login/password-grant";
import type { TakenAttempt } from "../domain/login/ports";
import { askPreSignIn } from "../domain/login/pre-sign-in";
import {
  AuthorizationError,
  type AuthorizationRequest,
  parseAuthorizationRequest,
  redirectWith,
  UntrustedRedirectError,
} from "../domain/oidc/authorization-request";
import {
  BROWSER_SESSION_TTL_SECONDS,
  browserCookieValue,
  HOSTED_CLIENT,
  type LiveBrowserSession,
  liveBrowserSession,
} from "../domain/oidc/browser-session";
import { issueCode } from "../domain/oidc/code-grant";
import { authenticationOptions } from "../domain/passkeys/passkeys";
import { codeChannels } from "../domain/security/second-factor";
import type { PendingWrite } from "../domain/unit-of-work";
import {
  COOKIES,
  csrfMatches,
  newCsrfToken,
  openInteraction,
  pageResult,
  readCookie,
  sealInteraction,
  seeOther,
  setCookie,
} from "../http/browser";
import type { CommonCall, HttpResult } from "../http/route";
import { consentPage } from "../pages/consent";
import { errorPage } from "../pages/error";
import type { FormState } from "../pages/parts";
import { type SignInView, signInPage } from "../pages/sign-in";
import { type Language, pageLanguage, TEXT } from "../pages/text";

/**
 * What every hosted page shares (docs/sign-in.md): the authorization request carried
 * through the forms, the answers back to the client, and the browser session.
 */

export const now = () => Math.floor(Date.now() / 1000);
export const DEVICE_COOKIE_MAX_AGE = 400 * 24 * 3600;

export function languageFor(call: CommonCall, query: Record<string, string | undefined>): Language {
  return pageLanguage(query.ui_locales, call.language);
}

/** The answer to the client at its redirect URI (RFC 6749 4.1.2, RFC 9207 `iss`). */
export function backToClient(redirectUri: string, params: Record<string, string | undefined>, cookies?: string[]) {
  return seeOther(redirectWith(redirectUri, { ...params, iss: config().issuer }), cookies);
}

export function errorBack(error: AuthorizationError, cookies?: string[]): HttpResult {
  return backToClient(
    error.redirectUri,
    { error: error.error.code, error_description: oauthDescription(error.error.description), state: error.state },
    cookies,
  );
}

export function untrusted(lang: Language, error: UntrustedRedirectError): HttpResult {
  const t = TEXT[lang];
  return pageResult(400, errorPage(lang, error.problem === "unknown_client" ? t.unknownClient : t.badRedirect));
}

/** An untrusted client or redirect URI gets an error page; any other request error goes back to the client. */
export async function answeringErrors(lang: Language, answer: () => Promise<HttpResult>): Promise<HttpResult> {
  try {
    return await answer();
  } catch (error) {
    if (error instanceof UntrustedRedirectError) return untrusted(lang, error);
    if (error instanceof AuthorizationError) return errorBack(error);
    throw error;
  }
}

export async function loadRequest(query: Record<string, string | undefined>) {
  // The cached record client authentication uses: every sign-in page and form reads it, so one web application's
  // sign-ins would otherwise all read one item (docs/scale.md).
  const client =
    typeof query.client_id === "string"
      ? await services().clientCredentials.getWithSecrets(query.client_id)
      : undefined;
  const request = parseAuthorizationRequest(query, client);
  // Without a client the parse threw UntrustedRedirectError: here the client is known.
  return { client: client as ClientRecord, request };
}

/** The browser session the request's cookie names, when it is live. */
export function browserOf(call: CommonCall): Promise<LiveBrowserSession | undefined> {
  return liveBrowserSession(services().sessions, readCookie(call.cookies, COOKIES.session), now());
}

/** First-party clients, and scopes the user granted the client before, need no consent screen. */
export async function consentNeeded(
  client: ClientRecord,
  request: AuthorizationRequest,
  sub: string,
): Promise<boolean> {
  if (client.firstParty) return false;
  if (request.prompt.includes("consent")) return true;
  const granted = (await services().consents.list(sub)).find((c) => c.client_id === client.clientId);
  return !request.scopes.every((s) => granted?.scopes.includes(s));
}

export async function formState(query: Record<string, string>, existingCsrf: string | undefined) {
  const csrf = existingCsrf ?? newCsrfToken();
  return {
    state: { interaction: await sealInteraction(query, csrf, now()), csrf },
    cookies: existingCsrf ? [] : [setCookie(COOKIES.csrf, csrf)],
  };
}

/** With a signed-in browser: the consent screen when it is needed, else a code for the client. */
export async function answerSignedIn(
  call: CommonCall,
  client: ClientRecord,
  request: AuthorizationRequest,
  query: Record<string, string>,
  browser: LiveBrowserSession,
  cookies: string[],
): Promise<HttpResult> {
  if (await consentNeeded(client, request, browser.account.sub)) {
    if (request.prompt.includes("none")) {
      return errorBack(
        new AuthorizationError(
          new OAuthError("consent_required", "the user has not consented"),
          request.redirectUri,
          request.state,
        ),
        cookies,
      );
    }
    const form = await formState(query, readCookie(call.cookies, COOKIES.csrf));
    const lang = languageFor(call, query);
    return pageResult(
      200,
      consentPage({ lang, state: form.state, clientName: client.clientId, scopes: request.scopes }),
      [...cookies, ...form.cookies],
    );
  }
  const code = await issueCode(services().codes, request, browser, now());
  return backToClient(request.redirectUri, { code, state: request.state }, cookies);
}

export function definedOnly(query: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(Object.entries(query).filter((e): e is [string, string] => typeof e[1] === "string"));
}

export const interactionFields = {
  interaction: { type: "string", maxLength: 16384 },
  csrf: { type: "string", maxLength: 64 },
} as const;

/**
 * The authorization request's parameters a form carries, when its interaction and CSRF
 * token hold. They were checked against the client when the sign-in page was made; forms
 * that end in a code check them again (formRequest).
 */
export async function openForm(
  call: CommonCall,
  form: Readonly<Record<string, unknown>>,
): Promise<Record<string, string> | undefined> {
  const csrf = readCookie(call.cookies, COOKIES.csrf);
  if (!csrfMatches(csrf, form.csrf)) return undefined;
  return openInteraction(form.interaction, csrf as string, now());
}

/** A page opened by a link of the sign-in page: its interaction holds with the CSRF cookie. */
export async function linkedRequest(call: CommonCall, interaction: unknown) {
  const csrf = readCookie(call.cookies, COOKIES.csrf);
  const query = csrf ? await openInteraction(interaction, csrf, now()) : undefined;
  if (!query || !csrf) return undefined;
  return { query, state: { interaction: interaction as string, csrf } };
}

/** Answers a page opened by a link of the sign-in page once its interaction holds; else the expired-form page. */
export function answeringLink(
  call: CommonCall,
  interaction: unknown,
  answer: (found: NonNullable<Awaited<ReturnType<typeof linkedRequest>>>, lang: Language) => Promise<HttpResult>,
): Promise<HttpResult> {
  return answeringErrors(call.language, async () => {
    const found = await linkedRequest(call, interaction);
    return found ? answer(found, languageFor(call, found.query)) : expiredForm(call.language);
  });
}

/** Answers a form once its interaction holds, in the sign-in's language; else the expired-form page. */
export function answeringForm(
  call: CommonCall,
  form: Readonly<Record<string, unknown>>,
  answer: (query: Record<string, string>, lang: Language) => Promise<HttpResult>,
): Promise<HttpResult> {
  return answeringErrors(call.language, async () => {
    const query = await openForm(call, form);
    return query ? answer(query, languageFor(call, query)) : expiredForm(call.language);
  });
}

/** The request a form carries, checked against the client's record as it is now. */
export async function formRequest(call: CommonCall, form: Readonly<Record<string, unknown>>) {
  const query = await openForm(call, form);
  return query ? { query, ...(await loadRequest(query)) } : undefined;
}

/** A page reached without a live form (expired, forged, or opened without the sign-in page). */
export function expiredForm(lang: Language): HttpResult {
  return pageResult(400, errorPage(lang, TEXT[lang].sessionEnded));
}

/**
 * Opens the browser session for an account that just proved itself (a password, a
 * registration), records the login, and goes on to consent or back to the client.
 */
export async function signInBrowser(
  call: CommonCall,
  found: { client: ClientRecord; request: AuthorizationRequest; query: Record<string, string> },
  account: Account,
  login: {
    amr: string[];
    method: string;
    deps: LoginDeps;
    newCredential?: NewCredential;
    failuresOnRecord?: boolean;
    /** The password guess's attempt, given back in the commit. */
    attempt?: TakenAttempt;
    /** The flow's own writes, in the login's commit (a QR code redeemed). */
    items?: PendingWrite[];
    /** The second factor's method, for the login event. */
    factor?: string;
  },
): Promise<HttpResult> {
  const ip = call.sourceIp ?? "unknown";
  const userAgent = call.userAgent ?? "unknown";
  const opened = await recordLogin(
    account,
    {
      sessionClientId: HOSTED_CLIENT,
      clientId: found.request.clientId,
      amr: login.amr,
      refresh: false,
      ttlSeconds: BROWSER_SESSION_TTL_SECONDS,
    },
    { uaId: readCookie(call.cookies, COOKIES.device), ip, userAgent },
    login.deps,
    now(),
    login.newCredential,
    {
      method: login.method,
      items: login.items ?? [],
      failuresOnRecord: login.failuresOnRecord,
      attempt: login.attempt,
      factor: login.factor,
    },
  );
  const cookies = [
    setCookie(COOKIES.session, browserCookieValue(account.sub, opened.cookieSecret as string)),
    setCookie(COOKIES.device, opened.uaId, DEVICE_COOKIE_MAX_AGE),
  ];
  const browser = { session: opened.session, account };
  return answerSignedIn(call, found.client, found.request, found.query, browser, cookies);
}

/** The browser's answer as the form carries it: JSON of PublicKeyCredential.toJSON(). */
export function credentialOf<T>(raw: unknown): T | undefined {
  if (typeof raw !== "string" || raw === "") return undefined;
  try {
    const parsed = JSON.parse(raw) as unknown;
    return parsed && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as T) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The sign-in page, offering every configured external provider, and passkeys when the RP
 * ID is one browsers accept (the challenge is bound to the browser's CSRF token).
 */
export async function signInPageFor(view: Omit<SignInView, "providers" | "passkeyOptions">): Promise<string> {
  const providers = config().settings.federation.providers.map((p) => ({ fp: `${p.type}:${p.name}`, name: p.name }));
  const passkeyOptions =
    (view.step === "password" || view.step === "otp") && relyingParty(config()).offered
      ? JSON.stringify(await authenticationOptions(passkeyDeps(), view.state.csrf))
      : undefined;
  return signInPage({ ...view, providers, passkeyOptions, codeChannels: codeChannels(config().settings) });
}

/** The sign-in page again, with why another way of signing in did not work. */
export async function signInProblem(
  lang: Language,
  state: FormState,
  clientName: string,
  problem: string,
  status = 200,
): Promise<HttpResult> {
  return pageResult(status, await signInPageFor({ lang, state, clientName, step: "password", problem }));
}

/**
 * Signs in an account that another way vouched for (an external provider, a phone), unless
 * it is locked or `refusal` names a reason; the sign-in page says why not.
 */
export async function signInVouched(
  call: CommonCall,
  flow: { query: Record<string, string>; state: FormState; lang: Language },
  sub: string,
  login: {
    amr: string[];
    method: string;
    items?: PendingWrite[];
    refusal?: (account: Account) => string | undefined;
    /** The account as the vouching read found it, so it is not read again. */
    account?: Account;
  },
): Promise<HttpResult> {
  const { query, state, lang } = flow;
  const deps = loginDeps();
  const account = login.account ?? (await services().accounts.get(sub));
  if (!account) {
    countSignIn(deps, login.method, "unknown_account");
    return signInProblem(lang, state, query.client_id, TEXT[lang].refused);
  }
  const signIn = { clientId: query.client_id, method: login.method, ip: call.sourceIp, userAgent: call.userAgent };
  const locked = account.locked
    ? "account_locked"
    : account.state?.name === "inactivityLock"
      ? "inactivity_lock"
      : undefined;
  const why = locked ? TEXT[lang].refused : login.refusal?.(account);
  if (why) {
    await recordRefusedSignIn(deps, account.sub, signIn, now(), locked ?? "refused");
    return signInProblem(lang, state, query.client_id, why);
  }
  // Every way in asks the preSignIn hook, as the password does once proved, so a hook's block holds for all.
  const decision = await askPreSignIn(deps.hooks, { ...signIn, sub: account.sub });
  if (!decision.allowed) {
    // Recorded like a password sign-in the hook refused, so the account's history shows it.
    await recordRefusedSignIn(
      deps,
      account.sub,
      signIn,
      now(),
      decision.why === "failed" ? "hook_failed" : "sign_in_refused",
    );
    return decision.why === "failed"
      ? signInProblem(lang, state, query.client_id, TEXT[lang].hookFailed, 503)
      : signInProblem(lang, state, query.client_id, decision.message ?? TEXT[lang].refused, 403);
  }
  return signInBrowser(call, { query, ...(await loadRequest(query)) }, account, {
    amr: login.amr,
    method: login.method,
    deps,
    failuresOnRecord: false,
    items: login.items,
  });
}
