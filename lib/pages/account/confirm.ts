import { html } from "../html";
import { alert, notice, PASSKEY_SCRIPT, passkeyForm } from "../parts";
import type { Language } from "../text";
import { CONSOLE_TEXT, csrfField, type Section } from "./layout";

/** Confirm it's you: the password, or a passkey of the account (when the browser can use one). */
export function confirmBody(view: {
  lang: Language;
  csrf: string;
  next: Section;
  passkeyOptions?: string;
  problem?: string;
}) {
  const t = CONSOLE_TEXT[view.lang];
  const fields = html`${csrfField(view.csrf)}<input type="hidden" name="next" value="${view.next}">`;
  const passkey = view.passkeyOptions
    ? passkeyForm("get", view.passkeyOptions, "/svc/account/confirm/passkey", fields, {
        label: t.confirmWithPasskey,
        failed: t.passkeyMissing,
      })
    : html``;
  return html`${notice(view.problem ? undefined : t.confirmWhy)}${alert(view.problem)}
<form method="post" action="/svc/account/confirm">${fields}
<label for="password">${t.confirmPassword}</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">${t.confirmSubmit}</button></form>
${passkey}${PASSKEY_SCRIPT}`;
}
