import { describeViolation, type PolicyViolation } from "../domain/passwords/policy";
import { Html, html, STYLE } from "./html";
import { type Language, TEXT, type Texts } from "./text";

function layout(lang: Language, title: string, body: Html): string {
  return html`<!doctype html>
<html lang="${lang}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title><style>${new Html(STYLE)}</style></head>
<body><main><h1>${title}</h1>${body}</main></body>
</html>`.markup;
}

/** Hidden fields every form carries: the signed interaction and the CSRF token. */
export interface FormState {
  interaction: string;
  csrf: string;
}

function hidden(state: FormState): Html {
  return html`<input type="hidden" name="interaction" value="${state.interaction}"><input type="hidden" name="csrf" value="${state.csrf}">`;
}

function alert(message: string | undefined, extra?: Html): Html {
  return message === undefined ? html`` : html`<div class="error" role="alert"><p>${message}</p>${extra}</div>`;
}

/** The policy's words for each broken rule, in the page's language. */
function violationText(v: PolicyViolation, lang: Language): string {
  if (lang === "en") return describeViolation(v);
  switch (v.rule) {
    case "to_short":
      return `не короче ${v.low} символов`;
    case "to_long":
      return `не длиннее ${v.high} символов`;
    case "not_enough_groups":
      return `нужно больше символов из групп: ${v.no_matched_groups.map((g) => `${g.desc} (${g.min_number_symbols})`).join(", ")}`;
    case "in_password_history":
      return "этот пароль уже использовался";
    case "eq_current":
      return "новый пароль совпадает с текущим";
    case "not_enough_new_chars":
      return `нужно не меньше ${v.minNew} новых символов`;
    case "in_stop_dic":
      return `пароль содержит запрещённое слово «${v.stop_word}»`;
    case "in_password_dic":
      return "пароль слишком распространён";
    case "too_young":
      return `пароль менялся менее ${v.minAgeInSec} секунд назад`;
    case "id_store":
      return "пароль не должен содержать идентификаторы учётной записи";
  }
}

/** Which fields the sign-in form asks for beyond login and password. */
export type SignInStep = "password" | "otp" | "change";

export interface SignInView {
  lang: Language;
  state: FormState;
  clientName: string;
  step: SignInStep;
  /** Typed before and kept: the field is read-only. */
  username?: string;
  /** login_hint: filled in, still editable. */
  loginHint?: string;
  message?: keyof Texts & string;
  violations?: readonly PolicyViolation[];
}

/**
 * One form for every step: the password is typed again with the code or the new password,
 * so each post is checked exactly like the password grant (docs/sign-in.md).
 */
export function signInPage(view: SignInView): string {
  const t = TEXT[view.lang];
  const message = view.message ? (t[view.message] as string) : undefined;
  const rules = view.violations?.length
    ? html`<ul>${view.violations.map((v) => html`<li>${violationText(v, view.lang)}</li>`)}</ul>`
    : undefined;
  const change = view.step === "change";
  const body = html`<p class="note">${t.signInTo(view.clientName)}</p>
${alert(message, rules)}
<form method="post" action="/svc/oauth/signin">
${hidden(view.state)}
<label for="username">${t.username}</label>
<input id="username" name="username" autocomplete="username" required value="${view.username ?? view.loginHint ?? ""}"${view.username ? html` readonly` : html` autofocus`}>
<label for="password">${change ? t.currentPassword : t.password}</label>
<input id="password" name="password" type="password" autocomplete="current-password" required${view.username ? html` autofocus` : html``}>
${
  view.step === "otp"
    ? html`<label for="otp">${t.otp}</label>
<input id="otp" name="otp" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6,8}" required>`
    : html``
}
${
  change
    ? html`<label for="new_password">${t.newPassword}</label>
<input id="new_password" name="new_password" type="password" autocomplete="new-password" required>`
    : html``
}
<button type="submit">${t.submit}</button>
</form>`;
  return layout(view.lang, t.signInTitle, body);
}

export function consentPage(view: {
  lang: Language;
  state: FormState;
  clientName: string;
  scopes: readonly string[];
}): string {
  const t = TEXT[view.lang];
  const items = view.scopes.map((s) => html`<li>${t.scope[s] ?? t.permission(s)}</li>`);
  const body = html`<p>${t.consentAsk(view.clientName)}</p><ul>${items}</ul>
<form method="post" action="/svc/oauth/consent">${hidden(view.state)}<input type="hidden" name="decision" value="allow"><button type="submit">${t.allow}</button></form>
<form method="post" action="/svc/oauth/consent">${hidden(view.state)}<input type="hidden" name="decision" value="deny"><button type="submit">${t.deny}</button></form>`;
  return layout(view.lang, t.consentTitle, body);
}

export function errorPage(lang: Language, message: string): string {
  const t = TEXT[lang];
  return layout(lang, t.errorTitle, html`<p class="error" role="alert">${message}</p>`);
}

export function logoutPage(lang: Language, state: FormState): string {
  const t = TEXT[lang];
  return layout(
    lang,
    t.logoutTitle,
    html`<p>${t.logoutAsk}</p><form method="post" action="/svc/oauth/logout">${hidden(state)}<button type="submit">${t.logout}</button></form>`,
  );
}

export function loggedOutPage(lang: Language): string {
  const t = TEXT[lang];
  return layout(lang, t.logoutTitle, html`<p role="status">${t.loggedOut}</p>`);
}
