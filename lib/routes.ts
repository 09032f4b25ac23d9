import { type RouteDefinition, routeKey } from "./http/route";
import { instanceIdInPath, oauthError, subjectIdParam, v2Error, v3Error } from "./http/schemas/common";
import { contactCodeRefusal, contactCodeRequest, stateParam } from "./http/schemas/contact-confirmation";
import {
  bindBody,
  bindResponse,
  fedTokenParams,
  fedTokenView,
  linkBody,
  linkList,
  linkParams,
  providerAnswerQuery,
} from "./http/schemas/federation";
import {
  confirmationRequest,
  contextParam,
  registrationError,
  registrationRequest,
  registrationResponse,
} from "./http/schemas/registration";
import { tokenRequest, tokenResponse } from "./http/schemas/token";
import { accountChange, accountView } from "./http/schemas/users";

/**
 * THE route table (DESIGN 3). The CDK stack, the local gateway, each function's
 * dispatch, request validation and the OpenAPI document are all made from this list.
 *
 * API Gateway (and OpenAPI) refuse two variables of different names at the same level
 * of a path, so every `/users/{x}` route names its variable `subjectId`; routes that
 * address the account by instanceId say so in `subject.kind`.
 */
export const routes: readonly RouteDefinition[] = [
  {
    id: "token.issue",
    method: "POST",
    path: "/svc/oauth/te",
    fn: "token",
    version: "oauth",
    auth: "client",
    summary: "Issue an access token (OAuth 2.0 token endpoint)",
    description:
      "grant_type=client_credentials (SPEC 5.2). Client authentication by HTTP Basic or by client_id and client_secret form fields (RFC 6749 2.3.1). Errors per RFC 6749 5.2.",
    tags: ["tokens"],
    request: { body: { contentType: "form", schema: tokenRequest, required: true } },
    responses: {
      200: { description: "Token issued", schema: tokenResponse },
      400: { description: "invalid_request, unsupported_grant_type, invalid_scope", schema: oauthError },
      401: { description: "invalid_client", schema: oauthError },
    },
  },
  {
    id: "token.jwks",
    method: "GET",
    path: "/svc/.well-known/jwks.json",
    fn: "token",
    version: "meta",
    auth: "none",
    summary: "Public keys that verify access tokens (JWKS, RFC 7517)",
    tags: ["tokens"],
    responses: {
      200: {
        description: "Key set",
        schema: {
          type: "object",
          required: ["keys"],
          properties: { keys: { type: "array", items: { type: "object" } } },
        },
      },
    },
  },
  {
    id: "meta.health",
    method: "GET",
    path: "/svc/health",
    fn: "meta",
    version: "meta",
    auth: "none",
    summary: "Health: 200 once storage answers",
    tags: ["service"],
    responses: {
      200: {
        description: "Storage answers",
        schema: { type: "object", required: ["status"], properties: { status: { const: "ok" } } },
      },
      503: { description: "Storage does not answer", schema: v3Error },
    },
  },
  {
    id: "meta.openapi",
    method: "GET",
    path: "/svc/api/openapi.json",
    fn: "meta",
    version: "meta",
    auth: "none",
    summary: "This OpenAPI 3.1 document",
    tags: ["service"],
    responses: { 200: { description: "OpenAPI document", schema: { type: "object" } } },
  },
  {
    id: "users.get",
    method: "GET",
    path: "/svc/api/v3/users/{subjectId}",
    fn: "users",
    version: "v3",
    auth: "bearer",
    permissions: { user: ["svc_api_user"], system: ["svc_api_sys_users"] },
    subject: { param: "subjectId", kind: "subjectId" },
    summary: "Read the attributes of an account (SPEC 4.6)",
    tags: ["users"],
    request: { params: subjectIdParam },
    responses: {
      200: { description: "Account attributes with meta", schema: accountView },
      400: { description: "Malformed subject id", schema: v3Error },
      401: { description: "bad_access_token", schema: v3Error },
      404: { description: "unknown_user", schema: v3Error },
    },
  },
  {
    id: "users.change",
    method: "POST",
    path: "/svc/api/v3/users/{subjectId}",
    fn: "users",
    version: "v3",
    auth: "bearer",
    permissions: { user: ["svc_api_user_chg"], system: ["svc_api_sys_users_chg"] },
    subject: { param: "subjectId", kind: "instanceId" },
    userHeaders: true,
    summary: "Change attributes of an account (SPEC 4.6); the path carries meta.instanceId",
    description:
      "The path segment is the account's meta.instanceId (SPEC 4.6 writes it {instanceId}). Send only the attributes to change. sub is unmodifiable; locked and contacts with vrf=true are system mode only. A contact with vrf=false gets a code (SMS or e-mail) and waits in notes.actions until confirmed. User mode sends X-Forwarded-For and User-Agent. A code that cannot be sent answers 502 and changes nothing.",
    tags: ["users"],
    request: {
      params: instanceIdInPath,
      body: { contentType: "json", schema: accountChange, required: true },
    },
    responses: {
      200: { description: "The changed account", schema: accountView },
      400: { description: "input_error: wrong_values, contact_use_violation", schema: v3Error },
      401: { description: "bad_access_token", schema: v3Error },
      404: { description: "unknown_user", schema: v3Error },
      502: { description: "The confirmation code could not be sent", schema: v3Error },
    },
  },
  ...(["mobile", "email"] as const).map(
    (kind): RouteDefinition => ({
      id: `users.validate_${kind}`,
      method: "POST",
      path: `/svc/api/v3/users/notes/validate_${kind}/{state}`,
      fn: "users",
      version: "v3",
      auth: "bearer",
      permissions: { user: ["svc_api_user_chg"], system: ["svc_api_sys_users_chg"] },
      subject: { param: "state", kind: "contactState" },
      userHeaders: true,
      summary: `Confirm a ${kind === "mobile" ? "phone number" : "e-mail"} change with its code (SPEC 4.6, 3.2)`,
      description:
        "state comes from notes.actions[].state. 200 with the changed account; 400 {msg: wrong_code, attempts_left}; 429 {cause: no_attempts_left}; 410 {cause: code_expired}; 404 when no change waits under the state.",
      tags: ["users"],
      request: { params: stateParam, body: { contentType: "json", schema: contactCodeRequest, required: true } },
      responses: {
        200: { description: "The contact changed and is confirmed", schema: accountView },
        400: { description: "wrong_code, or invalid input", schema: { anyOf: [contactCodeRefusal, v3Error] } },
        401: { description: "bad_access_token", schema: v3Error },
        404: { description: "unknown_state", schema: v3Error },
        410: { description: "code_expired", schema: contactCodeRefusal },
        429: { description: "no_attempts_left", schema: contactCodeRefusal },
      },
    }),
  ),
  {
    id: "registration.register",
    method: "PUT",
    path: "/svc/reg/api/v3/users",
    fn: "registration",
    version: "reg",
    auth: "bearer",
    permissions: { system: ["svc_api_sys_users_reg"] },
    summary: "Register an account (SPEC 4.4)",
    description:
      "Creates the account at once when every contact is confirmed (verified: true) or absent; otherwise sends a code to each unconfirmed phone (SMS) and e-mail and answers a context with instructions (SPEC 3.3). With registration.createBeforeConfirm the account is created at once and its contacts confirmed later. Accept-Language: en sends English messages. Conflicts answer 409 listing every field already used; invalid values 400; a message that cannot be sent 502 (nothing is stored).",
    tags: ["registration"],
    request: { body: { contentType: "json", schema: registrationRequest, required: true } },
    responses: {
      200: { description: "Registered, or waiting for codes", schema: registrationResponse },
      400: { description: "Invalid values, password policy, dynamic client", schema: registrationError },
      401: { description: "bad_access_token", schema: registrationError },
      409: { description: "Values already used by another account", schema: registrationError },
      502: { description: "The code could not be sent; nothing was stored", schema: registrationError },
    },
  },
  {
    id: "registration.confirm",
    method: "POST",
    path: "/svc/reg/api/v3/users/{context}",
    fn: "registration",
    version: "reg",
    auth: "bearer",
    permissions: { system: ["svc_api_sys_users_reg"] },
    summary: "Confirm a contact of a registration, or ask for a new code (SPEC 4.5)",
    description:
      "Exactly one of sms_code, email_code, sms_code_resend, email_code_resend. A wrong, expired or exhausted code answers 200 with the instructions of SPEC 3.3; once every contact is confirmed the account is created and the full response of SPEC 4.4 comes back. At most 5 codes are sent per contact (429 after that).",
    tags: ["registration"],
    request: { params: contextParam, body: { contentType: "json", schema: confirmationRequest, required: true } },
    responses: {
      200: { description: "Instructions, or the completed registration", schema: registrationResponse },
      400: { description: "Invalid body, or no such contact waits", schema: registrationError },
      404: { description: "Unknown, finished or expired context", schema: registrationError },
      429: { description: "No more codes for this contact", schema: registrationError },
      502: { description: "The new code could not be sent", schema: registrationError },
    },
  },
  {
    id: "federation.list",
    method: "GET",
    path: "/svc/api/v3/users/{subjectId}/fa",
    fn: "federation",
    version: "v3",
    auth: "bearer",
    permissions: { user: ["svc_api_ufa"], system: ["svc_api_sys_ufa"] },
    subject: { param: "subjectId", kind: "subjectId" },
    summary: "List the account's links to external providers (SPEC 4.9)",
    tags: ["federation"],
    request: { params: subjectIdParam },
    responses: {
      200: { description: "Links: sid, fpType, fpName, userName when known", schema: linkList },
      400: { description: "Malformed subject id", schema: v3Error },
      401: { description: "bad_access_token", schema: v3Error },
      404: { description: "unknown_user", schema: v3Error },
    },
  },
  {
    id: "federation.link",
    method: "POST",
    path: "/svc/api/v3/users/{subjectId}/fa/{fpType}/{fpName}/{sid}",
    fn: "federation",
    version: "v3",
    auth: "bearer",
    permissions: { user: ["svc_api_ufa_chg"], system: ["svc_api_sys_ufa_chg"] },
    subject: { param: "subjectId", kind: "subjectId" },
    summary: "Link the account to a known external account (SPEC 4.9)",
    description:
      "Links the account to account {sid} at the configured provider {fpType}:{fpName}. The caller vouches for the external account: applications that must prove it use the bind flow. An external account links to at most one account. Linking again updates federatedAccountName when given and keeps it when omitted.",
    tags: ["federation"],
    request: { params: linkParams, body: { contentType: "json", schema: linkBody } },
    responses: {
      204: { description: "Linked" },
      400: { description: "input_error: wrong_values; process_error: unknown_provider", schema: v3Error },
      401: { description: "bad_access_token", schema: v3Error },
      404: { description: "unknown_user", schema: v3Error },
      409: { description: "already_linked: the external account is linked to another account", schema: v3Error },
    },
  },
  {
    id: "federation.unlink",
    method: "DELETE",
    path: "/svc/api/v3/users/{subjectId}/fa/{fpType}/{fpName}/{sid}",
    fn: "federation",
    version: "v3",
    auth: "bearer",
    permissions: { user: ["svc_api_ufa_chg"], system: ["svc_api_sys_ufa_chg"] },
    subject: { param: "subjectId", kind: "subjectId" },
    summary: "Remove a link to an external account, and its stored tokens (SPEC 4.9)",
    tags: ["federation"],
    request: { params: linkParams },
    responses: {
      204: { description: "Unlinked" },
      400: { description: "input_error: wrong_values", schema: v3Error },
      401: { description: "bad_access_token", schema: v3Error },
      404: { description: "unknown_link", schema: v3Error },
    },
  },
  {
    id: "federation.unlink-v2",
    method: "DELETE",
    path: "/svc/api/v2/users/{subjectId}/fa/{fpType}/{fpName}/{sid}",
    fn: "federation",
    version: "v2",
    auth: "bearer-or-basic",
    permissions: { user: ["svc_api_ufa_chg"], system: ["svc_api_sys_ufa_chg"] },
    subject: { param: "subjectId", kind: "subjectId" },
    summary: "Remove a link to an external account (SPEC 4.9, v2)",
    tags: ["federation"],
    request: { params: linkParams },
    responses: {
      204: { description: "Unlinked" },
      400: { description: "validation_error", schema: v2Error },
      401: { description: "access_denied", schema: v2Error },
      404: { description: "unknown_link", schema: v2Error },
    },
  },
  {
    id: "federation.bind",
    method: "POST",
    path: "/svc/api/v2/users/current/fa/bind",
    fn: "federation",
    version: "v2",
    auth: "user-bearer-or-user-basic",
    permissions: { user: ["svc_api_ufa_chg"] },
    summary: "Start linking the current user to an external account (SPEC 4.9)",
    description:
      "The current user is the one of HTTP Basic (the user's own login: sub, e-mail or phone, and password; then clientId names the application) or of a user access token with svc_api_ufa_chg. Answers the provider's authorization URL (signed single-use state, PKCE S256); send the browser there. The provider returns it to GET /svc/api/v2/users/current/fa/callback, which links the account and sends the browser to `callback` (with `error` and `error_description` when linking failed).",
    tags: ["federation"],
    request: { body: { contentType: "json", schema: bindBody, required: true } },
    responses: {
      200: { description: "Where to send the user's browser", schema: bindResponse },
      400: { description: "validation_error, unknown_provider", schema: v2Error },
      401: { description: "access_denied", schema: v2Error },
    },
  },
  {
    id: "federation.callback",
    method: "GET",
    path: "/svc/api/v2/users/current/fa/callback",
    fn: "federation",
    version: "v2",
    auth: "none",
    summary: "The provider returns the browser here to finish a bind",
    description:
      "Register this URL as the redirect URI at each provider (or set federation.callbackUrl). With a valid state it always answers 302 to the application's callback; otherwise 400 JSON.",
    tags: ["federation"],
    request: { query: providerAnswerQuery },
    responses: {
      302: { description: "To the application's callback; `error` and `error_description` when linking failed" },
      400: { description: "invalid_state: missing, forged, expired or already used", schema: v2Error },
    },
  },
  {
    id: "federation.token",
    method: "GET",
    path: "/svc/api/v3/users/{subjectId}/fedToken/{fedPointType}/{fedPointName}",
    fn: "federation",
    version: "v3",
    auth: "bearer",
    permissions: { system: ["fed_tkn_any", "fed_tkn_{fedPointType}_{fedPointName}"] },
    subject: { param: "subjectId", kind: "subjectId" },
    summary: "Stored external access tokens of the account at a provider (SPEC 4.9)",
    description:
      "Only for providers with rememberTokens. Each returned token has more than fedToken.minLifetimeSeconds left; one with less is refreshed first (at most once for concurrent calls). The application must be granted the permission that opened the call, checked at call time.",
    tags: ["federation"],
    request: { params: fedTokenParams },
    responses: {
      200: { description: "External account id -> {expiresOn, token}", schema: fedTokenView },
      400: { description: "input_error: wrong_values", schema: v3Error },
      401: { description: "bad_access_token: no permission, or a provider without token remembering", schema: v3Error },
      404: { description: "no_token", schema: v3Error },
      502: { description: "provider_unavailable: the refresh could not reach the provider", schema: v3Error },
    },
  },
];

const byKey = new Map(routes.map((route) => [routeKey(route), route]));

export function routeByKey(key: string): RouteDefinition | undefined {
  return byKey.get(key);
}
