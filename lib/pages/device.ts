import { html } from "./html";
import { alert, type FormState, hidden, layout, notice } from "./parts";
import { type Language, TEXT } from "./text";

/** What the device page shows: the code form, or how the user's answer ended. */
export type DeviceView =
  | {
      lang: Language;
      state: FormState;
      /** From verification_uri_complete: the user only confirms it. */
      userCode?: string;
      problem?: string;
    }
  | { lang: Language; done: "approved" | "denied" | "expired" };

/** RFC 8628 3.3: the user types (or confirms) the code the device shows, then signs in and answers. */
export function devicePage(view: DeviceView): string {
  const t = TEXT[view.lang];
  if ("done" in view) return layout(view.lang, t.deviceTitle, notice(t.deviceDone[view.done]));
  const body = html`${alert(view.problem)}<p>${t.deviceAsk}</p>
<form method="post" action="/svc/oauth/device">${hidden(view.state)}
<label for="user_code">${t.deviceCode}</label>
<input id="user_code" name="user_code" autocomplete="one-time-code" autocapitalize="characters" spellcheck="false" required maxlength="16" value="${view.userCode ?? ""}">
<button type="submit">${t.deviceContinue}</button></form>`;
  return layout(view.lang, t.deviceTitle, body);
}
