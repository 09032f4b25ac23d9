import { html } from "./html";
import { type FormState, hidden, layout } from "./parts";
import { type Language, TEXT } from "./text";

/** The client asking and the permissions it asks for, each allowed or denied as one. */
export interface ConsentView {
  lang: Language;
  state: FormState;
  clientName: string;
  /** Set for a client that registered itself: where the browser returns, named beside the name it chose. */
  clientHost?: string;
  scopes: readonly string[];
}

export function consentPage(view: ConsentView): string {
  const t = TEXT[view.lang];
  const items = view.scopes.map((s) => html`<li>${t.scope[s] ?? t.permission(s)}</li>`);
  const asker = view.clientHost ? `${view.clientName} (${view.clientHost})` : view.clientName;
  const registered = view.clientHost ? html`<p class="note">${t.consentRegistered(view.clientHost)}</p>` : "";
  const body = html`<p>${t.consentAsk(asker)}</p>${registered}<ul>${items}</ul>
<form method="post" action="/svc/oauth/consent">${hidden(view.state)}<input type="hidden" name="decision" value="allow"><button type="submit">${t.allow}</button></form>
<form method="post" action="/svc/oauth/consent">${hidden(view.state)}<input type="hidden" name="decision" value="deny"><button type="submit">${t.deny}</button></form>`;
  return layout(view.lang, t.consentTitle, body);
}
