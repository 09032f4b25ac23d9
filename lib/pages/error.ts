import { html } from "./html";
import { layout } from "./parts";
import { type Language, TEXT } from "./text";

/** A dead end of the sign-in, the message already in words (an expired form says so here too). */
export function errorPage(lang: Language, message: string): string {
  const t = TEXT[lang];
  return layout(lang, t.errorTitle, html`<p class="error" role="alert">${message}</p>`);
}
