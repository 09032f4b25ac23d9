import { config } from "../config";
import { CLIENT_ID_PATTERN } from "../domain/clients/client";
import { problems } from "../domain/errors";
import { SID_PATTERN } from "../domain/federation/external-account";
import type { FederationUseCases } from "../domain/federation/federation";
import { splitFp } from "../domain/federation/providers";
import { COOKIES, csrfMatches, newCsrfToken, pageResult, readCookie, seeOther, setCookie } from "../http/browser";
import { jsonResult, redirectResult } from "../http/error-body";
import { acceptedPermissions } from "../http/middleware/authorization";
import type { CommonCall } from "../http/route";
import { group, route } from "../http/route";
import { errorPage } from "../pages/error";
import { linkConfirmPage } from "../pages/link-confirm";
import { TEXT } from "../pages/text";
import { PROVIDER_PART_PATTERN } from "../settings-schema";
import { personName, subjectIdParam, v2Error, v3Error } from "./schemas";

const subjectId = subjectIdParam.properties.subjectId;
const providerPart = (description: string) =>
  ({
    type: "string",
    pattern: PROVIDER_PART_PATTERN,
    description,
  }) as const;

/** /users/{subjectId}/fa/{fpType}/{fpName}/{sid} */
export const linkParams = {
  type: "object",
  required: ["subjectId", "fpType", "fpName", "sid"],
  properties: {
    subjectId,
    fpType: providerPart("Provider type, as configured (federation.providers[].type)"),
    fpName: providerPart("Provider name, as configured (federation.providers[].name)"),
    sid: { type: "string", pattern: SID_PATTERN, description: "Account id at the external provider" },
  },
} as const;

/** /users/{subjectId}/fedToken/{fedPointType}/{fedPointName} (interface §4.9 names them so). */
export const fedTokenParams = {
  type: "object",
  required: ["subjectId", "fedPointType", "fedPointName"],
  properties: {
    subjectId,
    fedPointType: providerPart("Provider type"),
    fedPointName: providerPart("Provider name"),
  },
} as const;

export const linkBody = {
  type: "object",
  additionalProperties: false,
  properties: {
    federatedAccountName: {
      ...personName,
      description: "Name of the external account; when omitted the stored name is kept",
    },
  },
} as const;

export const linkList = {
  type: "array",
  items: {
    type: "object",
    required: ["sid", "fpType", "fpName"],
    properties: {
      sid: { type: "string" },
      fpType: { type: "string" },
      fpName: { type: "string" },
      userName: { type: "string" },
    },
  },
} as const;

export const bindBody = {
  type: "object",
  additionalProperties: false,
  required: ["fp", "callback"],
  properties: {
    fp: {
      type: "string",
      pattern: "^[A-Za-z0-9-]{1,64}:[A-Za-z0-9-]{1,64}$",
      description: "<type>:<name> of a configured provider",
    },
    callback: {
      type: "string",
      format: "uri",
      maxLength: 2048,
      description: "Where the browser returns; must be a redirect URI registered for the application",
    },
    isPopup: { type: "boolean", description: "The provider's page opens in a popup (OIDC display=popup)" },
    clientId: {
      type: "string",
      pattern: CLIENT_ID_PATTERN.source,
      description:
        "The application whose redirect URIs hold `callback`. Required with HTTP Basic (the user's login names no application); with a user token it is the token's application.",
    },
  },
} as const;

export const bindResponse = {
  type: "object",
  required: ["redirectTo"],
  properties: { redirectTo: { type: "string", description: "Send the user's browser here" } },
} as const;

/** What a provider sends back (RFC 6749 4.1.2); providers may add more (iss, session_state). */
export const providerAnswerQuery = {
  type: "object",
  properties: {
    state: { type: "string", maxLength: 512 },
    code: { type: "string", maxLength: 4096 },
    error: { type: "string", maxLength: 256 },
    error_description: { type: "string", maxLength: 2048 },
  },
} as const;

export const fedTokenView = {
  type: "object",
  description: "External account id at the provider -> its access token",
  additionalProperties: {
    type: "object",
    required: ["expiresOn", "token"],
    properties: {
      expiresOn: { type: "integer", description: "Unix time the token expires" },
      token: { type: "string" },
    },
  },
} as const;

function linkOf(call: { subject: string; params: { fpType: string; fpName: string; sid: string } }) {
  return {
    sub: call.subject,
    fpType: call.params.fpType,
    fpName: call.params.fpName,
    sid: call.params.sid,
  } as const;
}

const CALLBACK_PATH = "/svc/api/v2/users/current/fa/callback";
const HOST = /^[A-Za-z0-9.-]+(:[0-9]{1,5})?$|^\[[0-9A-Fa-f:.]+\](:[0-9]{1,5})?$/;

/** Our callback as the provider will call it: configured, else this request's own origin. */
function callbackUrl(call: CommonCall): string {
  const configured = config().settings.federation.callbackUrl;
  if (configured) return configured;
  const host = call.headers.host;
  if (!host || !HOST.test(host)) throw problems.wrongValue("host", "the Host header is missing or malformed");
  const proto = call.headers["x-forwarded-proto"]?.split(",")[0]?.trim() === "https" ? "https" : "http";
  return `${proto}://${host}${CALLBACK_PATH}`;
}

/** The application the bind is made for: the user token's, or the one named with Basic. */
function bindingClientId(call: CommonCall & { body: { clientId?: string } }): string {
  const principal = call.principal;
  const named = call.body.clientId;
  if (principal?.via === "bearer") {
    if (named !== undefined && named !== principal.clientId) {
      throw problems.wrongValue("clientId", "clientId must be the application of the access token");
    }
    return principal.clientId;
  }
  if (named === undefined)
    throw problems.wrongValues([{ error: "required", pos: "clientId", desc: "clientId is required with HTTP Basic" }]);
  return named;
}

/** The v3 path and the v2 path (interface §4.9) unlink alike; only the error shape differs. */
function unlink(federation: FederationUseCases) {
  return async (call: CommonCall & { subject: string; params: { fpType: string; fpName: string; sid: string } }) => {
    await federation.unlink(linkOf(call));
    return jsonResult(204, undefined);
  };
}

const listRoute = (federation: FederationUseCases) =>
  route({
    id: "federation.list",
    method: "GET",
    path: "/svc/api/v3/users/{subjectId}/fa",
    version: "v3",
    auth: "bearer",
    permissions: { user: ["svc_api_ufa"], system: ["svc_api_sys_ufa"] },
    subject: { param: "subjectId", kind: "subjectId" },
    summary: "List the account's links to external providers (interface §4.9)",
    tags: ["federation"],
    request: { params: subjectIdParam },
    responses: {
      200: { description: "Links: sid, fpType, fpName, userName when known", schema: linkList },
      400: { description: "Malformed subject id", schema: v3Error },
      401: { description: "bad_access_token", schema: v3Error },
      404: { description: "unknown_user", schema: v3Error },
    },
    handler: async (call) => jsonResult(200, await federation.links(call.subject, call.account?.sub === call.subject)),
  });

const linkRoute = (federation: FederationUseCases) =>
  route({
    id: "federation.link",
    method: "POST",
    path: "/svc/api/v3/users/{subjectId}/fa/{fpType}/{fpName}/{sid}",
    version: "v3",
    auth: "bearer",
    permissions: { user: ["svc_api_ufa_chg"], system: ["svc_api_sys_ufa_chg"] },
    subject: { param: "subjectId", kind: "subjectId" },
    summary: "Link the account to a known external account (interface §4.9)",
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
    handler: async (call) => {
      await federation.link({ ...linkOf(call), userName: call.body?.federatedAccountName });
      return jsonResult(204, undefined);
    },
  });

const unlinkRoute = (federation: FederationUseCases) =>
  route({
    id: "federation.unlink",
    method: "DELETE",
    path: "/svc/api/v3/users/{subjectId}/fa/{fpType}/{fpName}/{sid}",
    version: "v3",
    auth: "bearer",
    permissions: { user: ["svc_api_ufa_chg"], system: ["svc_api_sys_ufa_chg"] },
    subject: { param: "subjectId", kind: "subjectId" },
    summary: "Remove a link to an external account, and its stored tokens (interface §4.9)",
    tags: ["federation"],
    request: { params: linkParams },
    responses: {
      204: { description: "Unlinked" },
      400: { description: "input_error: wrong_values", schema: v3Error },
      401: { description: "bad_access_token", schema: v3Error },
      404: { description: "unknown_link", schema: v3Error },
    },
    handler: unlink(federation),
  });

const unlinkV2 = (federation: FederationUseCases) =>
  route({
    id: "federation.unlink-v2",
    method: "DELETE",
    path: "/svc/api/v2/users/{subjectId}/fa/{fpType}/{fpName}/{sid}",
    version: "v2",
    auth: "bearer-or-basic",
    permissions: { user: ["svc_api_ufa_chg"], system: ["svc_api_sys_ufa_chg"] },
    subject: { param: "subjectId", kind: "subjectId" },
    summary: "Remove a link to an external account (interface §4.9, v2)",
    tags: ["federation"],
    request: { params: linkParams },
    responses: {
      204: { description: "Unlinked" },
      400: { description: "validation_error", schema: v2Error },
      401: { description: "access_denied", schema: v2Error },
      404: { description: "unknown_link", schema: v2Error },
    },
    handler: unlink(federation),
  });

const bindRoute = (federation: FederationUseCases) =>
  route({
    id: "federation.bind",
    method: "POST",
    path: "/svc/api/v2/users/current/fa/bind",
    version: "v2",
    auth: "user-bearer-or-user-basic",
    permissions: { user: ["svc_api_ufa_chg"] },
    summary: "Start linking the current user to an external account (interface §4.9)",
    description:
      "The current user is the one of HTTP Basic (the user's own login: sub, e-mail or phone, and password; then clientId names the application) or of a user access token with svc_api_ufa_chg. Answers the provider's authorization URL (signed single-use state, PKCE S256); send the browser there. The provider returns it to GET /svc/api/v2/users/current/fa/callback, which links the account and sends the browser to `callback` (with `error` and `error_description` when linking failed).",
    tags: ["federation"],
    request: { body: { contentType: "json", schema: bindBody, required: true } },
    responses: {
      200: { description: "Where to send the user's browser", schema: bindResponse },
      400: { description: "validation_error, unknown_provider", schema: v2Error },
      401: { description: "access_denied", schema: v2Error },
    },
    handler: async (call) => {
      const principal = call.principal;
      if (principal?.mode !== "user") throw problems.badAccessToken("user_token_required");
      const redirectTo = await federation.startBind({
        sub: principal.sub,
        clientId: bindingClientId(call),
        ...splitFp(call.body.fp),
        callback: call.body.callback,
        isPopup: call.body.isPopup === true,
        redirectUri: callbackUrl(call),
        stateTtlSeconds: config().settings.federation.stateTtlSeconds,
      });
      return jsonResult(200, { redirectTo }, { "cache-control": "no-store" });
    },
  });

const callback = (federation: FederationUseCases) =>
  route({
    id: "federation.callback",
    method: "GET",
    path: CALLBACK_PATH,
    version: "v2",
    auth: "none",
    summary: "The provider returns the browser here to finish a bind",
    description:
      "Register this URL as the redirect URI at each provider (or set federation.callbackUrl). With a valid state it answers 302 to the application's callback, once the link is known to be the account owner's: the browser carries the account's hosted sign-in session, else it gets a page where the owner confirms with the account's password (POST .../fa/confirm). A forged, used or expired state answers 400 JSON.",
    tags: ["federation"],
    request: { query: providerAnswerQuery },
    responses: {
      200: { description: "The owner's confirmation page (a CSRF cookie is set)", contentType: "text/html" },
      302: { description: "To the application's callback; `error` and `error_description` when linking failed" },
      400: { description: "invalid_state: missing, forged, expired or already used", schema: v2Error },
    },
    handler: async (call) => {
      const outcome = await federation.completeBind(call.query, readCookie(call.cookies, COOKIES.session));
      if (outcome.kind === "back") return redirectResult(outcome.location);
      const csrf = newCsrfToken();
      const page = linkConfirmPage({ lang: call.language, csrf, ...outcome });
      return pageResult(200, page, [setCookie(COOKIES.csrf, csrf)]);
    },
  });

const confirmForm = {
  type: "object",
  properties: {
    confirmation: { type: "string", maxLength: 512 },
    csrf: { type: "string", maxLength: 128 },
    password: { type: "string", maxLength: 1024 },
  },
} as const;

const confirmLink = (federation: FederationUseCases) =>
  route({
    id: "federation.confirm",
    method: "POST",
    path: "/svc/api/v2/users/current/fa/confirm",
    version: "page",
    auth: "none",
    summary: "The account owner confirms a bind with the account's password (the callback's page)",
    description:
      "Single use: a wrong password ends the confirmation, and the browser returns to the application's callback with error=access_denied; failed passwords count as failed logins of the account.",
    tags: ["federation"],
    request: { body: { contentType: "form", schema: confirmForm, required: true } },
    responses: {
      303: { description: "To the application's callback; `error` and `error_description` when nothing was linked" },
      400: { description: "A forged, used or expired confirmation, or another browser's", contentType: "text/html" },
    },
    handler: async (call) => {
      const expired = () => pageResult(400, errorPage(call.language, TEXT[call.language].sessionEnded));
      const { confirmation, csrf, password } = call.body;
      if (!confirmation || !csrfMatches(readCookie(call.cookies, COOKIES.csrf), csrf)) return expired();
      // The connection's address counts, never one the caller claims to forward.
      const location = await federation.confirmBind(confirmation, password ?? "", call.connectionIp || "unknown");
      if (!location) return expired();
      return seeOther(location, [setCookie(COOKIES.csrf, "", 0)]);
    },
  });

const token = (federation: FederationUseCases) =>
  route({
    id: "federation.token",
    method: "GET",
    path: "/svc/api/v3/users/{subjectId}/fedToken/{fedPointType}/{fedPointName}",
    version: "v3",
    auth: "bearer",
    permissions: { system: ["fed_tkn_any", "fed_tkn_{fedPointType}_{fedPointName}"] },
    subject: { param: "subjectId", kind: "subjectId" },
    summary: "Stored external access tokens of the account at a provider (interface §4.9)",
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
    handler: async (call) => {
      const { fedPointType, fedPointName } = call.params;
      const principal = call.principal;
      if (principal?.mode !== "system")
        throw problems.badAccessToken("insufficient_scope", { error: "insufficient_scope", scope: "fed_tkn_any" });
      const accepted = acceptedPermissions(call.route.permissions?.system ?? [], call.params);
      const caller = { clientId: principal.clientId, scopes: principal.scopes, accepted };
      const tokens = await federation.externalTokens(caller, call.subject, fedPointType, fedPointName);
      return jsonResult(200, tokens, { "cache-control": "no-store" });
    },
  });

export const federationRoutes = (federation: FederationUseCases) =>
  group("federation", [
    listRoute(federation),
    linkRoute(federation),
    unlinkRoute(federation),
    unlinkV2(federation),
    bindRoute(federation),
    callback(federation),
    confirmLink(federation),
    token(federation),
  ]);
