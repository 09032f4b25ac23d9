import type { OrganizationChoice } from "../domain/oidc/organization";
import { html } from "./html";
import { type FormState, hidden, layout } from "./parts";
import { type Language, TEXT } from "./text";

/** The organization picker: the application asked for scope `organization` and named none (docs/organizations.md). */
export function organizationPage(view: { lang: Language; state: FormState; choices: OrganizationChoice[] }): string {
  const t = TEXT[view.lang];
  const forms = view.choices.map(
    (org) =>
      html`<li><form method="post" action="/svc/oauth/organization">${hidden(view.state)}<input type="hidden" name="organization" value="${org.id}"><button type="submit" class="secondary">${org.name ?? org.id}</button></form></li>`,
  );
  const body = html`<p>${t.organizationAsk}</p><ul class="choices">${forms}</ul>`;
  return layout(view.lang, t.organizationTitle, body);
}
