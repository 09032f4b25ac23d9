import { config } from "../../config";
import type { ApiError } from "../../domain/errors";
import { oauthDescription } from "../../domain/errors";
import {
  AuthorizationError,
  type ResponseMode,
  redirectWith,
  UntrustedRedirectError,
} from "../../domain/oidc/authorization-request";
import type { LiveBrowserSession } from "../../domain/oidc/browser-session";
import type { PolicyViolation } from "../../domain/passwords/policy";
import type { BrowserOrigin } from "../../domain/sign-in/browser-sign-in";
import type { PausedSignIn } from "../../domain/sign-in/flow";
import {
  COOKIES,
  csrfMatches,
  newCsrfToken,
  openSignIn,
  pageResult,
  readCookie,
  sealInteraction,
  seeOther,
  setCookie,
} from "../../http/browser";
import type { CommonCall, HttpResult } from "../../http/route";
import { errorPage } from "../../pages/error";
import { FORM_POST_HEADERS, formPostPage } from "../../pages/form-post";
import type { FormState } from "../../pages/parts";
import { type Language, pageLanguage, TEXT } from "../../pages/text";
import type { HostedUseCases } from "./use-cases";

/**
 * What the hosted route families share to render a flow's decision as HTTP: pages,
 * redirects, cookies, the expired form. No business rules: those are the domain's
 * (lib/domain/sign-in/).
 */

export const now = () => Math.floor(Date.now() / 1000);
export const DEVICE_COOKIE_MAX_AGE = 400 * 24 * 3600;

export function languageFor(call: CommonCall, query: Record<string, string | undefined>): Language {
  return pageLanguage(query.ui_locales, call.language);
}

/** Where and how the client hears the answer. */
export interface ClientAnswer {
  redirectUri: string;
  responseMode: ResponseMode;
}

/**
 * The answer to the client at its redirect URI (RFC 6749 4.1.2, RFC 9207 `iss`): in the
 * redirect's query, or a page whose form the browser posts there (form_post).
 */
export function backToClient(
  lang: Language,
  to: ClientAnswer,
  params: Record<string, string | undefined>,
  cookies?: string[],
): HttpResult {
  const answer = { ...params, iss: config().issuer };
  if (to.responseMode === "query") return seeOther(redirectWith(to.redirectUri, answer), cookies);
  const page = pageResult(200, formPostPage(lang, to.redirectUri, definedOnly(answer)), cookies);
  return { ...page, headers: { ...FORM_POST_HEADERS } };
}

export function errorBack(lang: Language, error: AuthorizationError, cookies?: string[]): HttpResult {
  return backToClient(
    lang,
    error,
    { error: error.error.code, error_description: oauthDescription(error.error.description), state: error.state },
    cookies,
  );
}

/** An untrusted client or redirect URI gets an error page; any other request error goes back to the client. */
export async function answeringErrors(lang: Language, answer: () => Promise<HttpResult>): Promise<HttpResult> {
  try {
    return await answer();
  } catch (error) {
    if (error instanceof UntrustedRedirectError) {
      const t = TEXT[lang];
      const words = {
        unknown_client: t.unknownClient,
        bad_redirect_uri: t.badRedirect,
        unknown_user_code: t.deviceUnknownCode,
        unknown_request_uri: t.unknownRequestUri,
      };
      return pageResult(400, errorPage(lang, words[error.problem]));
    }
    if (error instanceof AuthorizationError) return errorBack(lang, error);
    throw error;
  }
}

export function definedOnly(query: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(Object.entries(query).filter((e): e is [string, string] => typeof e[1] === "string"));
}

/** The hidden fields of every hosted form (lib/pages/parts.ts hidden()). */
export const interactionFields = {
  interaction: { type: "string", maxLength: 16384 },
  csrf: { type: "string", maxLength: 64 },
} as const;

/** A hosted form's schema: its own fields beside the interaction and CSRF token, which every form must carry. */
export function hostedForm<const P extends Record<string, unknown>>(properties: P) {
  return {
    type: "object",
    required: ["interaction", "csrf"],
    properties: { ...interactionFields, ...properties },
  } as const;
}

/** A new interaction for the request (and a paused sign-in), with the CSRF cookie when the browser has none. */
export async function formState(
  query: Record<string, string>,
  existingCsrf: string | undefined,
  paused?: PausedSignIn,
) {
  const csrf = existingCsrf ?? newCsrfToken();
  return {
    state: { interaction: await sealInteraction(query, csrf, now(), paused), csrf },
    cookies: existingCsrf ? [] : [setCookie(COOKIES.csrf, csrf)],
  };
}

/** A page reached without a live form (expired, forged, or opened without the sign-in page). */
export function expiredForm(lang: Language): HttpResult {
  return pageResult(400, errorPage(lang, TEXT[lang].sessionEnded));
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

/** The browser as the sign-in sees it: its address (the connection's counts for guesses), browser, device cookie. */
export function originOf(call: CommonCall, language: Language): BrowserOrigin {
  const ip = call.sourceIp ?? "unknown";
  return {
    ip,
    addresses: [call.connectionIp ?? ip],
    userAgent: call.userAgent ?? "unknown",
    uaId: readCookie(call.cookies, COOKIES.device),
    language,
    now: now(),
  };
}

/** The browser session the request's cookie names, when it is live. */
export function browserOf(uc: HostedUseCases, call: CommonCall): Promise<LiveBrowserSession | undefined> {
  return uc.authorization.browserSession(readCookie(call.cookies, COOKIES.session), now());
}

/** A form of the sign-in: its request's parameters and paused sign-in, when its interaction and CSRF token hold. */
export interface OpenedForm {
  query: Record<string, string>;
  paused?: PausedSignIn;
  state: FormState;
}

export async function openForm(
  call: CommonCall,
  form: { interaction: string; csrf: string },
): Promise<OpenedForm | undefined> {
  const csrf = readCookie(call.cookies, COOKIES.csrf);
  if (!csrf || !csrfMatches(csrf, form.csrf)) return undefined;
  const opened = await openSignIn(form.interaction, csrf, now());
  return opened && { ...opened, state: { interaction: form.interaction, csrf } };
}

/** A page opened by a link of the sign-in page: its interaction holds with the CSRF cookie. */
async function linkedRequest(call: CommonCall, interaction: string | undefined): Promise<OpenedForm | undefined> {
  const csrf = readCookie(call.cookies, COOKIES.csrf);
  const opened = csrf && interaction ? await openSignIn(interaction, csrf, now()) : undefined;
  return opened && csrf && interaction ? { query: opened.query, state: { interaction, csrf } } : undefined;
}

/** Answers a page opened by a link of the sign-in page once its interaction holds; else the expired-form page. */
export function answeringLink(
  call: CommonCall,
  interaction: string | undefined,
  answer: (found: OpenedForm, lang: Language) => Promise<HttpResult>,
): Promise<HttpResult> {
  return answeringErrors(call.language, async () => {
    const found = await linkedRequest(call, interaction);
    return found ? answer(found, languageFor(call, found.query)) : expiredForm(call.language);
  });
}

/** Answers a form once its interaction holds, in the sign-in's language; else the expired-form page. */
export function answeringForm(
  call: CommonCall,
  form: { interaction: string; csrf: string },
  answer: (found: OpenedForm, lang: Language) => Promise<HttpResult>,
): Promise<HttpResult> {
  return answeringErrors(call.language, async () => {
    const found = await openForm(call, form);
    return found ? answer(found, languageFor(call, found.query)) : expiredForm(call.language);
  });
}

/** What the registration and reset families share: the caller they act for, the link's query, field reading. */

export function text(value: unknown): string {
  return typeof value === "string" ? value.trim() : "";
}

/** The registration or reset acts for the client the sign-in is for. */
export function callerOf(call: CommonCall, query: Record<string, string>, lang: Language) {
  return {
    clientId: query.client_id,
    language: lang,
    ip: call.sourceIp,
    userAgent: call.userAgent,
    sessionCookie: false,
  };
}

export const linkQuery = { type: "object", properties: { interaction: interactionFields.interaction } } as const;

export const linkResponses = {
  200: { description: "The form", contentType: "text/html" },
  303: { description: "Back to the client with an error" },
  400: { description: "Expired or forged interaction", contentType: "text/html" },
} as const;

/** The violations a policy refusal carries (lib/domain/passwords/violations.ts). */
export function violationsOf(error: ApiError): PolicyViolation[] {
  const listed = (error.details.errors as Array<{ params?: unknown }> | undefined) ?? [
    { params: error.details.params },
  ];
  return listed.map((p) => p.params as PolicyViolation).filter((v) => v && typeof v.rule === "string");
}
