import { html } from "./html";
import { alert, type FormState, hidden, layout } from "./parts";
import { type Language, TEXT } from "./text";

export interface QrSignInView {
  lang: Language;
  state: FormState;
  code: string;
  png: string;
  message?: string;
}

/** The QR login of a desktop: the code as an image and as text, and one button to go on. */
export function qrSignInPage(view: QrSignInView): string {
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
