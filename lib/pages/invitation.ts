import type { Acceptance, InvitationPreview } from "../domain/organizations/invitations";
import { html } from "./html";
import { type FormState, hidden, layout } from "./parts";
import { type Language, TEXT } from "./text";

/**
 * An invitation's link opened (docs/organizations.md#invitations): who invites, and the two
 * ways on, signing in or registering, both carrying the sealed invitation.
 */
export function invitationPage(view: { lang: Language; state: FormState; preview: InvitationPreview }): string {
  const t = TEXT[view.lang];
  const register = `/svc/oauth/register?interaction=${encodeURIComponent(view.state.interaction)}`;
  const body = html`<p>${t.invitationTo(view.preview.organization)}</p>
<p class="note">${t.invitationFor(view.preview.email)}</p>
<form method="post" action="/svc/oauth/invitation">
${hidden(view.state)}
<button type="submit">${t.invitationSignIn}</button>
</form>
<p><a href="${register}">${t.invitationRegister}</a></p>`;
  return layout(view.lang, t.invitationTitle, body);
}

/** How accepting ended, after the sign-in or the registration. */
export function invitationResultPage(lang: Language, acceptance: Acceptance, accountUri: string): string {
  const t = TEXT[lang];
  const toAccount = html`<p><a href="${accountUri}">${t.invitationToAccount}</a></p>`;
  switch (acceptance.kind) {
    case "joined":
      return layout(
        lang,
        t.invitationTitle,
        html`<p role="status">${t.invitationJoined(acceptance.organization)}</p>${toAccount}`,
      );
    case "alreadyMember":
      return layout(
        lang,
        t.invitationTitle,
        html`<p role="status">${t.invitationAlreadyMember(acceptance.organization)}</p>${toAccount}`,
      );
    case "wrongAccount":
      return layout(lang, t.invitationTitle, html`<p class="error" role="alert">${t.invitationWrongAccount}</p>`);
    default:
      return layout(lang, t.invitationTitle, html`<p class="error" role="alert">${t.invitationGone}</p>`);
  }
}
