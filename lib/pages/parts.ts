/**
 * What the hosted pages share: the layout, the hidden form state, alerts and notices, the
 * password rules broken, links within a sign-in and the passkey script with its forms.
 */
import { describeViolation, type PolicyViolation } from "../domain/passwords/policy";
import { type Brand, brandMark, pageBrand } from "./brand";
import { type Html, html, styleSheets } from "./html";
import type { Language } from "./text";

/** A hosted page: the product's name and logo above the card when configured (docs/account/look.md). */
export function layout(lang: Language, title: string, body: Html, brand: Brand = pageBrand()): string {
  const header =
    brand.productName || brand.logo
      ? html`<header class="brand-top"><p class="brand">${brandMark(brand, lang)}</p></header>`
      : html``;
  return html`<!doctype html>
<html lang="${lang}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${brand.productName ? `${title} · ${brand.productName}` : title}</title>${styleSheets(brand.theme)}</head>
<body>${header}<main class="card"><h1>${title}</h1>${body}</main></body>
</html>`.markup;
}

/** Hidden fields every form carries: the signed interaction and the CSRF token. */
export interface FormState {
  interaction: string;
  csrf: string;
}

export function hidden(state: FormState): Html {
  return html`<input type="hidden" name="interaction" value="${state.interaction}"><input type="hidden" name="csrf" value="${state.csrf}">`;
}

export function alert(message: string | undefined, extra?: Html): Html {
  return message === undefined ? html`` : html`<div class="error" role="alert"><p>${message}</p>${extra}</div>`;
}

/** Good news (a code sent, a password changed): announced politely, not as an error. */
export function notice(message: string | undefined): Html {
  return message === undefined ? html`` : html`<p class="note" role="status">${message}</p>`;
}

export function violationList(violations: readonly PolicyViolation[] | undefined, lang: Language): Html | undefined {
  return violations?.length
    ? html`<ul>${violations.map((v) => html`<li>${violationText(v, lang)}</li>`)}</ul>`
    : undefined;
}

/** A link to another page of the same sign-in, carrying its signed interaction. */
export function flowLink(path: string, state: FormState, text: string): Html {
  return html`<a href="${path}?interaction=${encodeURIComponent(state.interaction)}">${text}</a>`;
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
    case "breached_password":
      return "пароль встречается в утечках данных";
  }
}

export const PASSKEY_SCRIPT = html`<script src="/svc/oauth/passkeys.js" defer></script>`;

/**
 * A form the passkey script runs (lib/pages/passkeys-script.txt): the ceremony's options
 * travel in data-options, the browser's answer goes back in `credential`.
 */
export function passkeyForm(
  ceremony: "get" | "create",
  options: string,
  action: string,
  fields: Html,
  text: { label: string; failed: string },
  autofill = false,
): Html {
  return html`<form method="post" action="${action}" data-passkey="${ceremony}" data-options="${options}"${autofill ? html` data-autofill` : html``}>
${fields}<input type="hidden" name="credential" value="">
<p class="error" role="alert" data-passkey-error data-text="${text.failed}" hidden></p>
<button type="submit">${text.label}</button>
</form>`;
}
