import { html } from "./html";
import { type FormState, hidden, layout } from "./parts";
import { type Language, TEXT } from "./text";

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
