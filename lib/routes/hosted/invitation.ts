import { INVITATION_MARK } from "../../domain/organizations/invitations";
import { COOKIES, pageResult, readCookie } from "../../http/browser";
import { route } from "../../http/route";
import { errorPage } from "../../pages/error";
import { invitationPage } from "../../pages/invitation";
import { pageLanguage, TEXT } from "../../pages/text";
import { answeringErrors, answeringForm, formState, hostedForm } from "./answers";
import { authorizationAnswer } from "./authorize";
import type { HostedUseCases } from "./use-cases";

/**
 * An organization invitation's link (docs/organizations.md#invitations): the page says who
 * invites; signing in or registering from it carries the token sealed in the interaction, as
 * the account console's sign-in carries its mark, and the sign-in ends by accepting it.
 */

const invitationQuery = {
  type: "object",
  properties: {
    token: { type: "string", maxLength: 128 },
    ui_locales: { type: "string", maxLength: 64 },
  },
} as const;

const openInvitation = (uc: HostedUseCases) =>
  route({
    id: "hosted.invitation",
    method: "GET",
    path: "/svc/oauth/invitation",
    version: "page",
    auth: "none",
    summary: "An organization invitation's link: who invites, then sign in or register to join",
    description:
      "The token names a pending, unexpired invitation (one GetItem by its digest); the page offers signing in (any way of the sign-in page) or registering with the invited address, which the link confirms. A used, revoked, expired or unknown token gets a page saying so.",
    tags: ["sign-in"],
    request: { query: invitationQuery },
    responses: {
      200: { description: "The invitation page", contentType: "text/html" },
      410: { description: "The invitation is no longer valid", contentType: "text/html" },
    },
    handler: (call) =>
      answeringErrors(call.language, async () => {
        const token = call.query.token ?? "";
        const preview = await uc.invitations.preview(token);
        const lang = pageLanguage(call.query.ui_locales, preview?.language ?? call.language);
        if (!preview) return pageResult(410, errorPage(lang, TEXT[lang].invitationGone));
        const form = await formState(
          { [INVITATION_MARK]: token, ui_locales: lang },
          readCookie(call.cookies, COOKIES.csrf),
        );
        return pageResult(200, invitationPage({ lang, state: form.state, preview }), form.cookies);
      }),
  });

const joinForm = hostedForm({});

const join = (uc: HostedUseCases) =>
  route({
    id: "hosted.invitation-join",
    method: "POST",
    path: "/svc/oauth/invitation",
    version: "page",
    auth: "none",
    summary: "Accept an invitation: with a signed-in browser at once, else after the sign-in page",
    description:
      "The sealed invitation goes through the sign-in like any request: a usable browser session accepts it now, otherwise the sign-in page follows and accepting ends it. Accepted only by an account whose confirmed e-mail is the invited address, once, before expiry or revocation.",
    tags: ["sign-in"],
    request: { body: { contentType: "form", schema: joinForm, required: true } },
    responses: {
      200: { description: "The sign-in page, or how accepting ended", contentType: "text/html" },
      400: { description: "Expired or forged form", contentType: "text/html" },
      403: { description: "The account is not the invited address's", contentType: "text/html" },
      410: { description: "The invitation is no longer valid", contentType: "text/html" },
    },
    handler: (call) => answeringForm(call, call.body, async (opened) => authorizationAnswer(uc, call, opened.query)),
  });

export const invitationRoutes = (uc: HostedUseCases) => [openInvitation(uc), join(uc)];
