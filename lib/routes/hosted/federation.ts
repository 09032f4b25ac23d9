import { config } from "../../config";
import { COOKIES, openSignIn, pageResult, readCookie, seeOther } from "../../http/browser";
import { route } from "../../http/route";
import { errorPage } from "../../pages/error";
import { TEXT } from "../../pages/text";
import {
  answeringErrors,
  answeringForm,
  answeringLink,
  expiredForm,
  hostedForm,
  languageFor,
  linkQuery,
  now,
  type OpenedForm,
  originOf,
} from "./answers";
import { answerDecision, signInPageFor } from "./decisions";
import type { HostedUseCases } from "./use-cases";

/**
 * "Sign in with <provider>" on the hosted pages (docs/sign-in.md): the federation module's
 * bind state and code exchange, answered at a callback of the hosted pages.
 */

/** Where providers send the browser back; registered at each provider beside the bind callback. */
export function federatedCallbackUrl(): string {
  return `${config().issuer}/oauth/federated/callback`;
}

const startQuery = {
  type: "object",
  properties: {
    interaction: { type: "string", maxLength: 16384 },
    fp: { type: "string", maxLength: 200, description: "<type>:<name> of a configured provider" },
  },
} as const;

const federatedStart = (uc: HostedUseCases) =>
  route({
    id: "hosted.federated",
    method: "GET",
    path: "/svc/oauth/federated",
    version: "page",
    auth: "none",
    summary: "Sign in with an external provider: on to the provider, with a single-use state and PKCE",
    tags: ["sign-in"],
    request: { query: startQuery },
    responses: {
      303: { description: "To the provider's authorization endpoint" },
      400: { description: "Expired interaction or unknown provider", contentType: "text/html" },
    },
    handler: (call) =>
      answeringLink(call, call.query.interaction, async (found, lang) => {
        const expiresAt = now() + config().settings.federation.stateTtlSeconds;
        const { clientId, interaction } = { clientId: found.query.client_id, interaction: found.state.interaction };
        const started = await uc.signIn.toProvider(
          call.query.fp ?? "",
          clientId,
          interaction,
          federatedCallbackUrl(),
          expiresAt,
        );
        if (!started.url) return pageResult(400, errorPage(lang, TEXT[lang].providerFailed(started.fpName || "?")));
        return seeOther(started.url.toString());
      }),
  });

const callbackQuery = {
  type: "object",
  properties: {
    state: { type: "string", maxLength: 1024 },
    code: { type: "string", maxLength: 4096 },
    error: { type: "string", maxLength: 256 },
  },
} as const;

const federatedCallback = (uc: HostedUseCases) =>
  route({
    id: "hosted.federated-callback",
    method: "GET",
    path: "/svc/oauth/federated/callback",
    version: "page",
    auth: "none",
    summary: "The provider's answer to a hosted sign-in: the linked account signs in",
    description:
      "Register this URL at each provider used for sign-in (docs/sign-in.md). The state must have been started by this browser (its CSRF cookie opens the sign-in it carries). An external account linked to an account (interface §4.9) signs that account in; otherwise the sign-in page says why.",
    tags: ["sign-in"],
    request: { query: callbackQuery },
    responses: {
      200: { description: "The sign-in page with what went wrong", contentType: "text/html" },
      303: { description: "Signed in: on to consent or the client" },
      400: { description: "A forged, used or expired state, or another browser's", contentType: "text/html" },
    },
    handler: async (call) =>
      answeringErrors(call.language, async () => {
        const taken = await uc.signIn.takeProviderState(call.query, now());
        const csrf = readCookie(call.cookies, COOKIES.csrf);
        const interaction = taken?.interaction;
        const opened = interaction && csrf ? await openSignIn(interaction, csrf, now()) : undefined;
        if (!taken || !interaction || !csrf || !opened) return expiredForm(call.language);
        const lang = languageFor(call, opened.query);
        const request = await uc.authorization.loadRequest(opened.query);
        const decision = await uc.signIn.federated(request, taken, call.query, originOf(call, lang));
        const found = { query: opened.query, state: { interaction, csrf }, lang };
        return answerDecision(call, uc, found, decision, { fpName: taken.fpName });
      }),
  });

// Single sign-on per organization (docs/organizations.md): the same state, PKCE and callback.

/** A new sign-in's start at an organization's provider: its state expires like any provider's. */
function ssoStart(found: OpenedForm) {
  return {
    clientId: found.query.client_id,
    interaction: found.state.interaction,
    redirectUri: federatedCallbackUrl(),
    expiresAt: now() + config().settings.federation.stateTtlSeconds,
  };
}

const orgSsoByAddress = (uc: HostedUseCases) =>
  route({
    id: "hosted.org-sso",
    method: "POST",
    path: "/svc/oauth/sso",
    version: "page",
    auth: "none",
    summary: "Home-realm discovery: a work address goes to its organization's provider",
    description:
      "An address of a domain an organization verified with policy sso, whose connection is enabled, goes to that organization's OpenID provider (state, PKCE and nonce as for any provider; the answer comes back to /svc/oauth/federated/callback). Any other address: the sign-in page, with the address in the login field.",
    tags: ["sign-in"],
    request: {
      body: { contentType: "form", schema: hostedForm({ email: { type: "string", maxLength: 256 } }), required: true },
    },
    responses: {
      200: { description: "The sign-in page: no organization signs in this address", contentType: "text/html" },
      303: { description: "To the organization's provider" },
      400: { description: "Expired or forged form", contentType: "text/html" },
    },
    handler: (call) =>
      answeringForm(call, call.body, async (found, lang) => {
        const address = call.body.email ?? "";
        const url = await uc.signIn.toOrgSsoByAddress(address, ssoStart(found));
        if (url) return seeOther(url.toString());
        const clientName = found.query.client_id;
        const view = { lang, state: found.state, clientName, step: "password", loginHint: address } as const;
        const page = await signInPageFor(uc, {
          ...view,
          notice: TEXT[lang].noOrgSso,
          organization: found.query.organization,
        });
        return pageResult(200, page);
      }),
  });

const orgSsoByOrganization = (uc: HostedUseCases) =>
  route({
    id: "hosted.org-sso-organization",
    method: "GET",
    path: "/svc/oauth/sso/org",
    version: "page",
    auth: "none",
    summary: "On to the provider of the organization the authorization request names",
    tags: ["sign-in"],
    request: { query: linkQuery },
    responses: {
      303: { description: "To the organization's provider" },
      400: {
        description: "Expired interaction, or the organization has no enabled connection",
        contentType: "text/html",
      },
    },
    handler: (call) =>
      answeringLink(call, call.query.interaction, async (found, lang) => {
        const orgId = found.query.organization;
        const url = orgId ? await uc.signIn.toOrgSso(orgId, ssoStart(found)) : undefined;
        if (!url) return pageResult(400, errorPage(lang, TEXT[lang].ssoUnavailable));
        return seeOther(url.toString());
      }),
  });

export const federationRoutes = (uc: HostedUseCases) => [
  federatedStart(uc),
  federatedCallback(uc),
  orgSsoByAddress(uc),
  orgSsoByOrganization(uc),
];
