import type { PolicyViolation } from "../domain/passwords/policy";
import { html } from "./html";
import { alert, type FormState, flowLink, hidden, layout, notice, violationList } from "./parts";
import { type Language, TEXT } from "./text";

export interface ResetRequestView {
  lang: Language;
  state: FormState;
  loginHint?: string;
  message?: string;
}

export function resetRequestPage(view: ResetRequestView): string {
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

export interface ResetCodeView {
  lang: Language;
  state: FormState;
  login: string;
  message?: string;
  violations?: readonly PolicyViolation[];
}

/** The code and the new password; the login typed before rides along, read-only. */
export function resetCodePage(view: ResetCodeView): string {
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
