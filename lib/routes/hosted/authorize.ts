import { CONSOLE_MARK } from "../../domain/account-console/console-client";
import { OAuthError } from "../../domain/errors";
import { GROUP_ID_PATTERN } from "../../domain/groups/group";
import { PUSHED_MARK } from "../../domain/oauth/pushed-authorization";
import {
  AUTHORIZATION_PARAMETERS,
  type AuthorizationRequest,
  refusalOf,
} from "../../domain/oidc/authorization-request";
import { INVITATION_MARK } from "../../domain/organizations/invitations";
import { COOKIES, pageResult, readCookie } from "../../http/browser";
import { type CommonCall, type HttpResult, route } from "../../http/route";
import {
  answeringErrors,
  browserOf,
  definedOnly,
  errorBack,
  expiredForm,
  formState,
  hostedForm,
  languageFor,
  now,
  openForm,
} from "./answers";
import { answerNext, signInPageFor } from "./decisions";
import type { HostedUseCases } from "./use-cases";

/** The authorization endpoint (docs/sign-in.md) and the consent form. */

/** Every parameter is read as text and checked by parseAuthorizationRequest. */
const authorizationQuery = {
  type: "object",
  properties: Object.fromEntries(AUTHORIZATION_PARAMETERS.map((name) => [name, { type: "string", maxLength: 8192 }])),
} as const;

/**
 * What only the service puts in a sealed request, dropped from what the browser sends: a user
 * code reaches the flow only through the device page, which counts the tries; the pushed mark
 * only from a request_uri the client pushed; the console's mark only from its sign-in link;
 * an invitation's only from its page.
 */
function browserParams(params: Record<string, string | undefined>) {
  const {
    user_code: _,
    [PUSHED_MARK]: _pushed,
    [CONSOLE_MARK]: _console,
    [INVITATION_MARK]: _invitation,
    ...rest
  } = params;
  return rest;
}

const loginRequired = (request: AuthorizationRequest) =>
  refusalOf(request, new OAuthError("login_required", "the user is not signed in"));

/**
 * What the endpoint answers for the request's parameters, however they were sent; the
 * device page hands its checked user code here too (a request of the device's client).
 */
export async function authorizationAnswer(
  uc: HostedUseCases,
  call: CommonCall,
  params: Record<string, string | undefined>,
) {
  const sent = definedOnly(params);
  return answeringErrors(languageFor(call, sent), async () => {
    const found = await uc.authorization.loadRequest(sent);
    // A pushed request's own parameters from here on: its language, and what the interaction seals.
    const query = definedOnly(found.query);
    const lang = languageFor(call, query);
    const browser = await browserOf(uc, call);
    if (browser && (await uc.authorization.usableSession(browser, found.request, now())))
      return answerNext(call, query, await uc.authorization.signedIn(found, browser, now()), []);
    if (found.request.prompt.includes("none")) return errorBack(lang, loginRequired(found.request));
    const form = await formState(query, readCookie(call.cookies, COOKIES.csrf));
    const { clientId: clientName, loginHint } = found.request;
    const organization = found.request.organization;
    const view = { lang, state: form.state, clientName, step: "password", loginHint, organization } as const;
    const page = await signInPageFor(uc, view);
    return pageResult(200, page, form.cookies);
  });
}

const AUTHORIZE_DESCRIPTION =
  "response_type=code with client_id, redirect_uri (exact match), scope, state, nonce, code_challenge and code_challenge_method=S256 (required of public clients), prompt (none, login, consent), max_age, login_hint, ui_locales, id_token_hint, resource, claims (OIDC Core 5.5), response_mode (query or form_post). Answers the sign-in page, the consent page, or the client's answer (code, state and iss; or error): a redirect, or with form_post a page whose form the browser posts to the redirect URI. A request_uri from the pushed authorization request endpoint (RFC 9126) with client_id stands for the request pushed: used once, within 60 seconds, other parameters ignored. An unknown client or redirect URI, or an unknown, used, expired or other client's request_uri, gets an error page, never a redirect.";

const AUTHORIZE_RESPONSES = {
  200: { description: "Sign-in, consent or form_post page", contentType: "text/html" },
  303: { description: "Back to the client with a code or an error" },
  400: { description: "Error page: unknown client, redirect URI or request_uri", contentType: "text/html" },
} as const;

const authorize = (uc: HostedUseCases) =>
  route({
    id: "hosted.authorize",
    method: "GET",
    path: "/svc/oauth/authorize",
    version: "page",
    auth: "none",
    summary: "Authorization endpoint (OAuth 2.0, OpenID Connect): code flow with PKCE",
    description: AUTHORIZE_DESCRIPTION,
    tags: ["sign-in"],
    request: { query: authorizationQuery },
    responses: AUTHORIZE_RESPONSES,
    handler: (call) => authorizationAnswer(uc, call, browserParams(call.query)),
  });

/**
 * OIDC Core 3.1.2.1: the same request as a form POST (a relying party whose request is too
 * long for a URL). A cross-site POST carries no SameSite=Lax cookie, so the browser's
 * session is not seen: prompt=none answers login_required, and the sign-in page is shown.
 */
const authorizeByPost = (uc: HostedUseCases) =>
  route({
    id: "hosted.authorize-post",
    method: "POST",
    path: "/svc/oauth/authorize",
    version: "page",
    auth: "none",
    summary: "Authorization endpoint, the parameters sent as a form (OIDC Core 3.1.2.1)",
    description: `As GET, with the parameters in an application/x-www-form-urlencoded body. ${AUTHORIZE_DESCRIPTION}`,
    tags: ["sign-in"],
    request: { body: { contentType: "form", schema: authorizationQuery, required: true } },
    responses: AUTHORIZE_RESPONSES,
    handler: (call) => authorizationAnswer(uc, call, browserParams(call.body)),
  });

/** A form posted after the sign-in (consent, organization picker): its interaction opened and the browser signed in, or the expired-form page. */
function afterSignInForm(
  uc: HostedUseCases,
  call: CommonCall,
  body: { interaction: string; csrf: string },
  answer: (
    form: NonNullable<Awaited<ReturnType<typeof openForm>>>,
    browser: NonNullable<Awaited<ReturnType<typeof browserOf>>>,
  ) => Promise<HttpResult>,
): Promise<HttpResult> {
  return answeringErrors(call.language, async () => {
    const form = await openForm(call, body);
    const browser = await browserOf(uc, call);
    if (!form || !browser) return expiredForm(call.language);
    return answer(form, browser);
  });
}

const consentForm = hostedForm({ decision: { enum: ["allow", "deny"] } });

const consent = (uc: HostedUseCases) =>
  route({
    id: "hosted.consent",
    method: "POST",
    path: "/svc/oauth/consent",
    version: "page",
    auth: "none",
    summary: "The consent form of a third-party client: allow records a consent (acls), deny answers access_denied",
    tags: ["sign-in"],
    request: { body: { contentType: "form", schema: consentForm, required: true } },
    responses: {
      303: { description: "Back to the client with a code or access_denied" },
      400: { description: "Expired or forged form, or no signed-in browser", contentType: "text/html" },
    },
    handler: (call) =>
      afterSignInForm(uc, call, call.body, async (form, browser) => {
        const { request } = await uc.authorization.loadRequest(form.query);
        const actor = { ip: call.sourceIp, userAgent: call.userAgent };
        const allow = call.body.decision === "allow";
        return answerNext(call, form.query, await uc.authorization.consent(request, browser, allow, actor, now()), []);
      }),
  });

const organizationForm = {
  ...hostedForm({
    organization: { type: "string", pattern: GROUP_ID_PATTERN, description: "the organization picked" },
  }),
  required: ["interaction", "csrf", "organization"],
} as const;

const pickOrganization = (uc: HostedUseCases) =>
  route({
    id: "hosted.organization",
    method: "POST",
    path: "/svc/oauth/organization",
    version: "page",
    auth: "none",
    summary:
      "The organization picker (scope organization): the request goes on for the one picked, a member's only (docs/organizations.md)",
    tags: ["sign-in"],
    request: { body: { contentType: "form", schema: organizationForm, required: true } },
    responses: {
      200: { description: "The consent page, when the client still needs one", contentType: "text/html" },
      303: { description: "Back to the client with a code, or access_denied for an organization not the user's" },
      400: { description: "Expired or forged form, or no signed-in browser", contentType: "text/html" },
    },
    handler: (call) =>
      afterSignInForm(uc, call, call.body, async (form, browser) => {
        // The pick joins the request's parameters: every later step reads the request with it.
        const query = { ...form.query, organization: call.body.organization };
        const found = await uc.authorization.loadRequest(query);
        return answerNext(call, query, await uc.authorization.signedIn(found, browser, now()), []);
      }),
  });

export const authorizeRoutes = (uc: HostedUseCases) => [
  authorize(uc),
  authorizeByPost(uc),
  consent(uc),
  pickOrganization(uc),
];
