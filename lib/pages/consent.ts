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
  /** A registered resource the request is for: its own scopes are listed under its name, as its operator words them. */
  resource?: { name: string; host: string; scopes: readonly { name: string; description?: string }[] };
}

export function consentPage(view: ConsentView): string {
  const t = TEXT[view.lang];
  const own = view.resource?.scopes ?? [];
  const ours = view.scopes.filter((s) => !own.some((r) => r.name === s));
  const items = ours.map((s) => html`<li>${t.scope[s] ?? t.permission(s)}</li>`);
  const resource = view.resource
    ? html`<p>${t.consentResource(view.resource.name, view.resource.host)}</p><ul>${own.map((s) => html`<li>${s.description ?? s.name}</li>`)}</ul>`
    : "";
  const asker = view.clientHost ? `${view.clientName} (${view.clientHost})` : view.clientName;
  const registered = view.clientHost ? html`<p class="note">${t.consentRegistered(view.clientHost)}</p>` : "";
  const body = html`<p>${t.consentAsk(asker)}</p>${registered}${items.length > 0 ? html`<ul>${items}</ul>` : ""}${resource}
<form method="post" action="/svc/oauth/consent">${hidden(view.state)}<input type="hidden" name="decision" value="allow"><button type="submit">${t.allow}</button></form>
<form method="post" action="/svc/oauth/consent">${hidden(view.state)}<input type="hidden" name="decision" value="deny"><button type="submit">${t.deny}</button></form>`;
  return layout(view.lang, t.consentTitle, body);
}
