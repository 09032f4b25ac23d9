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

/** Good news (a code sent, a password changed): announced politely, not as an error. */
function notice(message: string | undefined): Html {
  return message === undefined ? html`` : html`<p class="note" role="status">${message}</p>`;
}

function violationList(violations: readonly PolicyViolation[] | undefined, lang: Language): Html | undefined {
  return violations?.length
    ? html`<ul>${violations.map((v) => html`<li>${violationText(v, lang)}</li>`)}</ul>`
    : undefined;
}

/** A link to another page of the same sign-in, carrying its signed interaction. */
function flowLink(path: string, state: FormState, text: string): Html {
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
  /** Shown as a status, above the form: the password was just reset. */
  notice?: string;
  /** An error already in words (a provider's sign-in that failed). */
  problem?: string;
  /** External providers to sign in with (`<type>:<name>`, and the name shown). */
  providers?: ReadonlyArray<{ fp: string; name: string }>;
  /** WebAuthn request options (JSON) when passkeys are offered. */
  passkeyOptions?: string;
  /** Channels a sign-in code can be sent by, offered on the code step. */
  codeChannels?: ReadonlyArray<"email" | "sms">;
}

const PASSKEY_SCRIPT = html`<script src="/svc/oauth/passkeys.js" defer></script>`;

/**
 * A form the passkey script runs (lib/pages/passkeys-script.txt): the ceremony's options
 * travel in data-options, the browser's answer goes back in `credential`.
 */
function passkeyForm(
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

/**
 * The code step: the code, a recovery code behind a toggle (no script), and one extra
 * submit per channel a code can be sent by, after the main one so Enter signs in.
 */
function secondFactorFields(t: Texts, channels: ReadonlyArray<"email" | "sms">): Html {
  return html`<label for="otp">${channels.length ? t.otpAny : t.otp}</label>
<input id="otp" name="otp" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6,8}">
<details><summary>${t.recoveryToggle}</summary>
<label for="recovery_code">${t.recoveryCode}</label>
<input id="recovery_code" name="recovery_code" autocomplete="one-time-code" autocapitalize="none" spellcheck="false" maxlength="32">
</details>`;
}

/**
 * A passkey as the second factor: the script runs the ceremony and submits this form with the
 * answer in `passkey`, so the post carries the password too. A plain button, not a second submit.
 */
function secondFactorPasskey(t: Texts, options: string | undefined): Html {
  if (!options) return html``;
  return html`<input type="hidden" name="passkey" value="">
<p class="error" role="alert" data-passkey-error data-text="${t.passkeyMissing}" hidden></p>
<button type="button" data-passkey-second data-options="${options}">${t.usePasskey}</button>`;
}

function sendCodeButtons(t: Texts, step: SignInStep, channels: ReadonlyArray<"email" | "sms">): Html {
  if (step !== "otp") return html``;
  return html`${channels.map((c) => html`<button type="submit" name="otp_channel" value="${c}">${c === "email" ? t.sendCodeEmail : t.sendCodeSms}</button>`)}`;
}

/**
 * One form for every step: the password is typed again with the code or the new password,
 * so each post is checked exactly like the password grant (docs/sign-in.md).
 */
export function signInPage(view: SignInView): string {
  const t = TEXT[view.lang];
  const message = view.message ? (t[view.message] as string) : undefined;
  const rules = violationList(view.violations, view.lang);
  const change = view.step === "change";
  const providers = (view.providers ?? []).map(
    (p) =>
      html`<li><a href="/svc/oauth/federated?fp=${encodeURIComponent(p.fp)}&amp;interaction=${encodeURIComponent(view.state.interaction)}">${t.signInWith(p.name)}</a></li>`,
  );
  const links =
    view.step === "password"
      ? html`<ul class="links">${providers}<li>${flowLink("/svc/oauth/qr-signin", view.state, t.withPhone)}</li><li>${flowLink("/svc/oauth/register", view.state, t.createAccount)}</li><li>${flowLink("/svc/oauth/reset", view.state, t.forgotPassword)}</li></ul>`
      : html``;
  const body = html`<p class="note">${t.signInTo(view.clientName)}</p>
${notice(view.notice)}${alert(view.problem ?? message, rules)}
<form method="post" action="/svc/oauth/signin">
${hidden(view.state)}
<label for="username">${t.username}</label>
<input id="username" name="username" autocomplete="${view.passkeyOptions && view.step === "password" ? "username webauthn" : "username"}" required value="${view.username ?? view.loginHint ?? ""}"${view.username ? html` readonly` : html` autofocus`}>
<label for="password">${change ? t.currentPassword : t.password}</label>
<input id="password" name="password" type="password" autocomplete="current-password" required${view.username ? html` autofocus` : html``}>
${view.step === "otp" ? html`${secondFactorFields(t, view.codeChannels ?? [])}${secondFactorPasskey(t, view.passkeyOptions)}` : html``}
${
  change
    ? html`<label for="new_password">${t.newPassword}</label>
<input id="new_password" name="new_password" type="password" autocomplete="new-password" required>`
    : html``
}
<button type="submit">${t.submit}</button>
${sendCodeButtons(t, view.step, view.codeChannels ?? [])}
</form>
${
  view.passkeyOptions && view.step === "password"
    ? html`${passkeyForm(
        "get",
        view.passkeyOptions,
        "/svc/oauth/passkey",
        hidden(view.state),
        { label: t.withPasskey, failed: t.passkeyMissing },
        // After a refusal the autofill waits for the user instead of offering the same passkey again.
        message === undefined && view.problem === undefined,
      )}${PASSKEY_SCRIPT}`
    : view.passkeyOptions && view.step === "otp"
      ? PASSKEY_SCRIPT
      : html``
}
${links}`;
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

/** What the registration form was given, shown again when it is refused. */
export interface RegistrationFields {
  given_name?: string;
  family_name?: string;
  middle_name?: string;
  email?: string;
  phone?: string;
}

export function registerPage(view: {
  lang: Language;
  state: FormState;
  fields?: RegistrationFields;
  messages?: string[];
  violations?: readonly PolicyViolation[];
}): string {
  const t = TEXT[view.lang];
  const f = view.fields ?? {};
  const messages = view.messages?.length ? view.messages : view.violations?.length ? [t.policy] : [];
  const problems = messages.length
    ? html`<div class="error" role="alert">${messages.map((m) => html`<p>${m}</p>`)}${violationList(view.violations, view.lang)}</div>`
    : html``;
  const body = html`${problems}
<form method="post" action="/svc/oauth/register">
${hidden(view.state)}
<label for="given_name">${t.givenName}</label>
<input id="given_name" name="given_name" autocomplete="given-name" value="${f.given_name ?? ""}" autofocus>
<label for="family_name">${t.familyName}</label>
<input id="family_name" name="family_name" autocomplete="family-name" value="${f.family_name ?? ""}">
<label for="middle_name">${t.middleName}</label>
<input id="middle_name" name="middle_name" autocomplete="additional-name" value="${f.middle_name ?? ""}">
<p class="note" id="contact-hint">${t.contactHint}</p>
<label for="email">${t.email}</label>
<input id="email" name="email" type="email" autocomplete="email" aria-describedby="contact-hint" value="${f.email ?? ""}">
<label for="phone">${t.phone}</label>
<input id="phone" name="phone" type="tel" autocomplete="tel" aria-describedby="contact-hint" value="${f.phone ?? ""}">
<label for="password">${t.password}</label>
<input id="password" name="password" type="password" autocomplete="new-password" required>
<button type="submit">${t.registerSubmit}</button>
</form>`;
  return layout(view.lang, t.registerTitle, body);
}

/** A contact of a registration waiting for its code. */
export interface WaitingContact {
  channel: "email" | "sms";
  to: string;
}

/** The codes of a registration: one field per contact, and a resend form for each. */
export function registerCodesPage(view: {
  lang: Language;
  state: FormState;
  context: string;
  waiting: WaitingContact[];
  message?: string;
  notice?: string;
}): string {
  const t = TEXT[view.lang];
  const fields = view.waiting.map(
    (w) => html`<label for="${w.channel}_code">${t.codeSentTo(w.to)}</label>
<input id="${w.channel}_code" name="${w.channel}_code" inputmode="numeric" autocomplete="one-time-code" required>`,
  );
  const resends = view.waiting.map(
    (w) =>
      html`<form method="post" action="/svc/oauth/register/confirm">${hidden(view.state)}<input type="hidden" name="context" value="${view.context}"><input type="hidden" name="resend" value="${w.channel}"><button type="submit">${w.channel === "email" ? t.resendEmail : t.resendSms}</button></form>`,
  );
  const body = html`${notice(view.notice)}${alert(view.message)}
<form method="post" action="/svc/oauth/register/confirm">
${hidden(view.state)}<input type="hidden" name="context" value="${view.context}">
${fields}
<button type="submit">${t.confirm}</button>
</form>
${resends}`;
  return layout(view.lang, t.codesTitle, body);
}

export function resetRequestPage(view: {
  lang: Language;
  state: FormState;
  loginHint?: string;
  message?: string;
}): string {
  const t = TEXT[view.lang];
  const body = html`<p>${t.resetAsk}</p>${alert(view.message)}
<form method="post" action="/svc/oauth/reset">
${hidden(view.state)}
<label for="username">${t.username}</label>
<input id="username" name="username" autocomplete="username" required autofocus value="${view.loginHint ?? ""}">
<button type="submit">${t.sendCode}</button>
</form>`;
  return layout(view.lang, t.resetTitle, body);
}

/** The code and the new password; the login typed before rides along, read-only. */
export function resetCodePage(view: {
  lang: Language;
  state: FormState;
  login: string;
  message?: string;
  violations?: readonly PolicyViolation[];
}): string {
  const t = TEXT[view.lang];
  const body = html`${view.message ? html`` : notice(t.resetCodeSent)}${alert(view.message, violationList(view.violations, view.lang))}
<form method="post" action="/svc/oauth/reset/confirm">
${hidden(view.state)}
<label for="username">${t.username}</label>
<input id="username" name="username" autocomplete="username" readonly value="${view.login}">
<label for="code">${t.code}</label>
<input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" required autofocus>
<label for="new_password">${t.newPassword}</label>
<input id="new_password" name="new_password" type="password" autocomplete="new-password" required>
<button type="submit">${t.setPassword}</button>
</form>
<p>${flowLink("/svc/oauth/reset", view.state, t.requestAgain)}</p>`;
  return layout(view.lang, t.resetTitle, body);
}

/** The QR login of a desktop: the code as an image and as text, and one button to go on. */
export function qrSignInPage(view: {
  lang: Language;
  state: FormState;
  code: string;
  png: string;
  message?: string;
}): string {
  const t = TEXT[view.lang];
  const body = html`<p>${t.qrAsk}</p>${alert(view.message)}
<img src="data:image/png;base64,${view.png}" alt="${t.qrCode}: ${view.code}">
<p>${t.qrCode}: <code>${view.code}</code></p>
<form method="post" action="/svc/oauth/qr-signin">
${hidden(view.state)}<input type="hidden" name="qr_code" value="${view.code}">
<button type="submit">${t.qrContinue}</button>
</form>`;
  return layout(view.lang, t.qrTitle, body);
}

const LINK_CONFIRM_TEXT = {
  en: {
    title: "Confirm the link",
    ask: (fpName: string, userName: string | undefined) =>
      `Link the ${fpName} account${userName ? ` “${userName}”` : ""} to the account that started linking? Only that account's owner can confirm, with its password. If you did not start this, close the page.`,
    password: "Password of the account",
    confirm: "Link",
  },
  ru: {
    title: "Подтвердите привязку",
    ask: (fpName: string, userName: string | undefined) =>
      `Привязать учётную запись ${fpName}${userName ? ` «${userName}»` : ""} к учётной записи, которая начала привязку? Подтвердить может только её владелец, паролем. Если вы этого не начинали, закройте страницу.`,
    password: "Пароль учётной записи",
    confirm: "Привязать",
  },
} as const;

/** The owner's confirmation of a link to an external account (interface §4.9). */
export function linkConfirmPage(view: {
  lang: Language;
  confirmation: string;
  csrf: string;
  fpName: string;
  userName?: string;
}): string {
  const t = LINK_CONFIRM_TEXT[view.lang];
  const body = html`<p>${t.ask(view.fpName, view.userName)}</p>
<form method="post" action="/svc/api/v2/users/current/fa/confirm">
<input type="hidden" name="confirmation" value="${view.confirmation}"><input type="hidden" name="csrf" value="${view.csrf}">
<label for="password">${t.password}</label>
<input id="password" name="password" type="password" autocomplete="current-password" required autofocus>
<button type="submit">${t.confirm}</button>
</form>`;
  return layout(view.lang, t.title, body);
}

/** A passkey as the account page lists it. */
export interface AccountPasskey {
  id: string;
  name: string;
  createdAt: number;
  lastUsed?: number;
  backedUp: boolean;
}

const dateOf = (seconds: number) => new Date(seconds * 1000).toISOString().slice(0, 10);

/**
 * The signed-in user's passkeys: each with a delete form, and a form that enrols a new one.
 * `confirm` asks for the password with each change when the sign-in is not recent.
 */
export function accountPage(view: {
  lang: Language;
  state: FormState;
  passkeys: readonly AccountPasskey[];
  creationOptions: string;
  confirm: boolean;
  /** How many recovery codes are left; `newCodes` a set just made, shown this once. */
  recovery: { remaining: number; newCodes?: readonly string[] };
  notice?: string;
  problem?: string;
}): string {
  const t = TEXT[view.lang];
  const password = (id: string) =>
    view.confirm
      ? html`<label for="${id}">${t.confirmPassword}</label>
<input id="${id}" name="password" type="password" autocomplete="current-password" required>`
      : html``;
  const rows = view.passkeys.map(
    (p, i) => html`<li><strong>${p.name}</strong> <span class="note">${t.passkeyCreated(dateOf(p.createdAt))}${
      p.lastUsed === undefined ? "" : `, ${t.passkeyLastUsed(dateOf(p.lastUsed))}`
    }${p.backedUp ? `, ${t.passkeySynced}` : ""}</span>
<form method="post" action="/svc/oauth/account/passkeys/delete">${hidden(view.state)}<input type="hidden" name="id" value="${p.id}">${password(`password-${i}`)}<button type="submit">${t.deletePasskey(p.name)}</button></form></li>`,
  );
  const list = rows.length ? html`<ul>${rows}</ul>` : html`<p>${t.noPasskeys}</p>`;
  const add = passkeyForm(
    "create",
    view.creationOptions,
    "/svc/oauth/account/passkeys",
    html`${hidden(view.state)}<label for="name">${t.passkeyName}</label>
<input id="name" name="name" autocomplete="off" maxlength="64">
${password("password-new")}`,
    { label: t.addPasskey, failed: t.passkeyMissing },
  );
  const { newCodes, remaining } = view.recovery;
  const recovery = html`<h2>${t.recoveryTitle}</h2>
${
  newCodes
    ? html`<p role="status">${t.recoveryShownOnce}</p><ol class="codes">${newCodes.map((c) => html`<li><code>${c}</code></li>`)}</ol>`
    : html`<p>${t.recoveryRemaining(remaining)}</p>`
}
<form method="post" action="/svc/oauth/account/recovery-codes">${hidden(view.state)}${password("password-codes")}<button type="submit">${t.recoveryCreate}</button></form>`;
  return layout(
    view.lang,
    t.accountTitle,
    html`${notice(view.notice)}${alert(view.problem)}${list}${add}${recovery}${PASSKEY_SCRIPT}`,
  );
}
