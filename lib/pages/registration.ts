import type { PolicyViolation } from "../domain/passwords/policy";
import { html } from "./html";
import { alert, type FormState, hidden, layout, notice, violationList } from "./parts";
import { type Language, TEXT } from "./text";

/** What the registration form was given, shown again when it is refused. */
export interface RegistrationFields {
  given_name?: string;
  family_name?: string;
  middle_name?: string;
  email?: string;
  phone?: string;
}

export interface RegisterView {
  lang: Language;
  state: FormState;
  fields?: RegistrationFields;
  messages?: string[];
  violations?: readonly PolicyViolation[];
}

export function registerPage(view: RegisterView): string {
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

export interface RegisterCodesView {
  lang: Language;
  state: FormState;
  context: string;
  waiting: WaitingContact[];
  message?: string;
  notice?: string;
}

/** The codes of a registration: one field per contact, and a resend form for each. */
export function registerCodesPage(view: RegisterCodesView): string {
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
