import { signedInRecently } from "../../domain/account-console/console-session";
import { HOSTED_CLIENT, type LiveBrowserSession } from "../../domain/oidc/browser-session";
import { COOKIES, csrfMatches, newCsrfToken, pageResult, readCookie, seeOther, setCookie } from "../../http/browser";
import type { CommonCall, HttpResult } from "../../http/route";
import { CONSOLE_TEXT, type ConsoleTexts, consolePage, SECTION_PATHS, type Section } from "../../pages/account/layout";
import { errorPage } from "../../pages/error";
import { type Html, html } from "../../pages/html";
import { layout } from "../../pages/parts";
import type { Language } from "../../pages/text";
import type { AccountConsoleUseCases } from "./use-cases";

/**
 * What every section of the account console shares (docs/account.md): the signed-in browser,
 * the CSRF token, the re-authentication sensitive changes need, and the answers. Business
 * steps are the domain's; a section's routes only read the form and render.
 */

export const now = () => Math.floor(Date.now() / 1000);

/** The browser as a section sees it. */
export interface Visit {
  lang: Language;
  t: ConsoleTexts;
  browser: LiveBrowserSession;
  /** The CSRF token every form of the page carries (csrfField). */
  csrf: string;
  now: number;
  /** Whether a sensitive change would go ahead without confirming it's you first. */
  recent: boolean;
}

/** The CSRF cookie the browser has, or a new one and the header that sets it. */
function csrfOf(call: CommonCall): { csrf: string; cookies: string[] } {
  const existing = readCookie(call.cookies, COOKIES.csrf);
  if (existing) return { csrf: existing, cookies: [] };
  const csrf = newCsrfToken();
  return { csrf, cookies: [setCookie(COOKIES.csrf, csrf)] };
}

/** Not signed in: says so, with the way in (the hosted sign-in, which comes back here). */
function signedOut(lang: Language): HttpResult {
  const t = CONSOLE_TEXT[lang];
  const body = html`<p role="alert">${t.signedOut}</p><a class="button" href="/svc/oauth/account/sign-in">${t.signIn}</a>`;
  return pageResult(401, layout(lang, t.consoleTitle, body));
}

async function visitOf(uc: AccountConsoleUseCases, call: CommonCall, csrf: string): Promise<Visit | undefined> {
  const lang = call.language;
  const at = now();
  const browser = await uc.session.current(readCookie(call.cookies, COOKIES.session), at);
  if (!browser) return undefined;
  return { lang, t: CONSOLE_TEXT[lang], browser, csrf, now: at, recent: signedInRecently(browser, at) };
}

/** A section's page for a signed-in browser; a 401 page otherwise. */
export async function sectionPage(
  uc: AccountConsoleUseCases,
  call: CommonCall,
  section: Section | undefined,
  render: (visit: Visit) => Promise<{ title: string; body: Html; status?: number }>,
): Promise<HttpResult> {
  const { csrf, cookies } = csrfOf(call);
  const visit = await visitOf(uc, call, csrf);
  if (!visit) return signedOut(call.language);
  const shown = await render(visit);
  const page = consolePage({ lang: visit.lang, section, title: shown.title, body: shown.body });
  return pageResult(shown.status ?? 200, page, cookies);
}

/** Where the browser goes after a change: the section, saying what was done (`done`), by GET so a reload posts nothing. */
export function afterChange(section: Section, done: string): HttpResult {
  return seeOther(`${SECTION_PATHS[section]}?done=${encodeURIComponent(done)}`);
}

/**
 * A change posted from a section: a signed-in browser, the form's CSRF token, and for a
 * `sensitive` one a sign-in or re-authentication within 10 minutes (else the browser is
 * sent to confirm it's you, and back to the section). `change` answers the result.
 */
export async function sectionChange(
  uc: AccountConsoleUseCases,
  call: CommonCall,
  form: { csrf?: string },
  options: { section: Section; sensitive: boolean },
  change: (visit: Visit) => Promise<HttpResult>,
): Promise<HttpResult> {
  const csrf = readCookie(call.cookies, COOKIES.csrf);
  if (!csrf || !csrfMatches(csrf, form.csrf))
    return pageResult(400, errorPage(call.language, CONSOLE_TEXT[call.language].expiredForm));
  const visit = await visitOf(uc, call, csrf);
  if (!visit) return signedOut(call.language);
  if (options.sensitive && !visit.recent) return seeOther(`/svc/account/confirm?next=${options.section}`);
  return change(visit);
}

/** Who made a change from the console, for its security event: the browser session's own client. */
export function consoleActor(call: CommonCall, visit: Visit) {
  return { ts: Date.now(), cId: HOSTED_CLIENT, ip: call.sourceIp, ua: call.userAgent, sid: visit.browser.session.sid };
}

/** The fields every console form has. */
export const csrfProperty = { csrf: { type: "string", maxLength: 64 } } as const;

/** A console form's schema: its own fields beside the CSRF token. */
export function consoleForm<const P extends Record<string, unknown>>(properties: P) {
  return { type: "object", required: ["csrf"], properties: { ...csrfProperty, ...properties } } as const;
}

/** The query every section's page takes: what was just done, announced on the page. */
export const sectionQuery = {
  type: "object",
  properties: { done: { type: "string", maxLength: 32, description: "the change just made, announced on the page" } },
} as const;

/** What a section's page answers. */
export const SECTION_RESPONSES = {
  200: { description: "The section", contentType: "text/html" },
  401: { description: "Not signed in", contentType: "text/html" },
} as const;

/** What a section's change answers besides its 303 (which each route words for itself). */
export const CHANGE_REFUSALS = {
  400: { description: "The section with why not, or an expired form", contentType: "text/html" },
  401: { description: "Not signed in", contentType: "text/html" },
} as const;
