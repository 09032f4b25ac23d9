import { ID_TOKEN_ALGS } from "../domain/clients/client";
import type { ClientRegistrationUseCases, RegistrationCaller } from "../domain/clients/registration";
import { jsonResult, NO_STORE } from "../http/error-body";
import { type CommonCall, group, route } from "../http/route";
import { clientIdParam } from "./clients";
import { badAccessToken, v3Error } from "./schemas";

/**
 * OAuth 2.0 Dynamic Client Registration (RFC 7591) and Management (RFC 7592), and the
 * operator's initial access tokens that open it (docs/sign-in.md).
 */

const uri = { type: "string", minLength: 1, maxLength: 2048 } as const;
const uris = { type: "array", maxItems: 16, items: uri } as const;
const text = (maxLength: number) => ({ type: "string", minLength: 1, maxLength }) as const;

/** RFC 7591 2: fields it does not know are ignored (its `client_name#ja` and the like), so no additionalProperties. */
const metadataProperties = {
  redirect_uris: uris,
  token_endpoint_auth_method: text(64),
  grant_types: { type: "array", maxItems: 8, items: text(128) },
  response_types: { type: "array", maxItems: 4, items: text(64) },
  client_name: text(128),
  client_uri: uri,
  logo_uri: uri,
  tos_uri: uri,
  policy_uri: uri,
  contacts: { type: "array", maxItems: 8, items: text(256) },
  scope: { type: "string", maxLength: 2048 },
  software_id: text(256),
  software_version: text(256),
  id_token_signed_response_alg: { enum: ID_TOKEN_ALGS },
  post_logout_redirect_uris: uris,
  backchannel_logout_uri: uri,
  backchannel_logout_session_required: { type: "boolean" },
  dpop_bound_access_tokens: { type: "boolean" },
  require_pushed_authorization_requests: { type: "boolean" },
} as const;

/** One schema for registration and update, so its validator is compiled once: an update's client_id is checked by the use case. */
export const clientMetadata = {
  type: "object",
  properties: { ...metadataProperties, client_id: text(128), client_secret: text(256) },
} as const;

const stringList = { type: "array", items: { type: "string" } } as const;

const clientInformation = {
  type: "object",
  required: [
    "client_id",
    "client_id_issued_at",
    "registration_client_uri",
    "registration_access_token",
    "token_endpoint_auth_method",
    "grant_types",
    "response_types",
    "redirect_uris",
    "scope",
  ],
  properties: {
    client_id: { type: "string" },
    client_secret: { type: "string", description: "at registration only (and when an update repeats it)" },
    client_id_issued_at: { type: "integer" },
    client_secret_expires_at: { type: "integer", description: "0: the secret does not expire" },
    registration_access_token: { type: "string", description: "RFC 7592: manages this registration; kept as a digest" },
    registration_client_uri: { type: "string" },
    token_endpoint_auth_method: { type: "string" },
    grant_types: stringList,
    response_types: stringList,
    redirect_uris: stringList,
    post_logout_redirect_uris: stringList,
    scope: { type: "string" },
    id_token_signed_response_alg: { enum: ID_TOKEN_ALGS },
    client_name: { type: "string" },
  },
} as const;

/** RFC 7591 3.2.2's codes, RFC 6750's for the bearer token, and ours for a closed registration. */
const registrationError = {
  type: "object",
  required: ["error"],
  properties: {
    error: {
      enum: ["invalid_request", "invalid_redirect_uri", "invalid_client_metadata", "invalid_token", "access_denied"],
    },
    error_description: { type: "string" },
  },
} as const;

const refusals = {
  400: { description: "invalid_redirect_uri, invalid_client_metadata, invalid_request", schema: registrationError },
  401: {
    description: "invalid_token: no initial or registration access token, or an unknown, used-up or expired one",
    schema: registrationError,
    headers: { "www-authenticate": "Bearer challenge" },
  },
} as const;

/** The token of `Authorization: Bearer`, if any. */
function bearerOf(call: CommonCall): string | undefined {
  return /^Bearer\s+(\S+)$/i.exec(call.headers.authorization ?? "")?.[1];
}

const callerOf = (call: CommonCall): RegistrationCaller => ({ ip: call.sourceIp, ua: call.userAgent });

const registrationCall = { version: "oauth", auth: "none", tags: ["sign-in"] } as const;
/** RFC 7591 3.2.2: a metadata value the server refuses is invalid_client_metadata; a bad path stays invalid_request. */
const metadataCall = { ...registrationCall, invalidInput: "invalid_client_metadata" } as const;

const registerRoute = (registration: ClientRegistrationUseCases) =>
  route({
    id: "client-registration.register",
    method: "POST",
    path: "/svc/oauth/clients",
    ...metadataCall,
    summary: "Dynamic client registration (RFC 7591)",
    description:
      "Off unless the operator opens it (settings.clientRegistration.mode): `token` asks for an initial access token as the bearer, `open` takes registrations without one, limited per address per hour, with https or loopback redirect URIs only. A registered client is third-party (users see its name and host on the consent page), may use authorization_code and refresh_token only, holds only the user permissions the policy opens, and is removed once unused for clientRegistration.unusedDays. The client secret and the registration access token are answered this once.",
    request: { body: { contentType: "json", schema: clientMetadata, required: true } },
    responses: {
      201: { description: "Registered: the client information response", schema: clientInformation },
      ...refusals,
      403: { description: "access_denied: registration is off", schema: registrationError },
      429: {
        description: "invalid_request: too many registrations from this address this hour",
        schema: registrationError,
      },
    },
    handler: async (call) => {
      const registrant = { bearer: bearerOf(call), address: call.connectionIp ?? call.sourceIp ?? "unknown" };
      const now = Math.floor(Date.now() / 1000);
      return jsonResult(201, await registration.register(call.body, registrant, callerOf(call), now), NO_STORE);
    },
  });

const readRoute = (registration: ClientRegistrationUseCases) =>
  route({
    id: "client-registration.read",
    method: "GET",
    path: "/svc/oauth/clients/{clientId}",
    ...registrationCall,
    summary: "Read a registration with its registration access token (RFC 7592 2.1)",
    request: { params: clientIdParam },
    responses: { 200: { description: "The client information", schema: clientInformation }, ...refusals },
    handler: async (call) => jsonResult(200, await registration.read(call.params.clientId, bearerOf(call)), NO_STORE),
  });

const updateRoute = (registration: ClientRegistrationUseCases) =>
  route({
    id: "client-registration.update",
    method: "PUT",
    path: "/svc/oauth/clients/{clientId}",
    ...metadataCall,
    summary: "Replace a registration's metadata (RFC 7592 2.2)",
    description:
      "The metadata sent replaces the stored metadata, under the policy the client registered under; fields left out go back to their defaults. client_secret, when sent, must be the client's.",
    request: { params: clientIdParam, body: { contentType: "json", schema: clientMetadata, required: true } },
    responses: { 200: { description: "The client information", schema: clientInformation }, ...refusals },
    handler: async (call) =>
      jsonResult(
        200,
        await registration.update(call.params.clientId, bearerOf(call), call.body, callerOf(call)),
        NO_STORE,
      ),
  });

const deleteRoute = (registration: ClientRegistrationUseCases) =>
  route({
    id: "client-registration.delete",
    method: "DELETE",
    path: "/svc/oauth/clients/{clientId}",
    ...registrationCall,
    summary: "Delete a registration (RFC 7592 2.3)",
    description: "The client gets no more tokens; tokens already issued live until they expire.",
    request: { params: clientIdParam },
    responses: { 204: { description: "Deleted" }, ...refusals },
    handler: async (call) => {
      await registration.remove(call.params.clientId, bearerOf(call), callerOf(call));
      return { statusCode: 204, headers: { ...NO_STORE }, body: "" };
    },
  });

export const initialTokenBody = {
  type: "object",
  additionalProperties: false,
  properties: {
    uses: { type: "integer", minimum: 1, maximum: 1000, description: "registrations it opens (default 1)" },
    days: { type: "integer", minimum: 1, maximum: 365, description: "days it stays good (default 7)" },
  },
} as const;

const initialTokenRoute = (registration: ClientRegistrationUseCases) =>
  route({
    id: "clients.initial-access-token",
    method: "POST",
    path: "/svc/admin/api/v3/clients/initial-access-tokens",
    version: "v3",
    auth: "bearer",
    tags: ["clients"],
    permissions: { system: ["svc_api_sys_clients_chg"] },
    summary: "Issue an initial access token for client registration (RFC 7591 3)",
    description:
      "Hand it to a developer or a deployment: it opens `uses` registrations at /svc/oauth/clients within `days`, as the bearer token, under the registration policy. Answered this once; only its digest is stored.",
    request: { body: { contentType: "json", schema: initialTokenBody } },
    responses: {
      201: {
        description: "The token, answered once",
        schema: {
          type: "object",
          required: ["token", "uses", "expiresAt"],
          properties: { token: { type: "string" }, uses: { type: "integer" }, expiresAt: { type: "integer" } },
        },
      },
      400: { description: "wrong_values", schema: v3Error },
      401: badAccessToken,
    },
    handler: async (call) => {
      const { uses = 1, days = 7 } = call.body ?? {};
      const now = Math.floor(Date.now() / 1000);
      return jsonResult(201, await registration.issueInitialToken(uses, days, now), NO_STORE);
    },
  });

export const clientRegistrationRoutes = (registration: ClientRegistrationUseCases) =>
  group("clients", [
    registerRoute(registration),
    readRoute(registration),
    updateRoute(registration),
    deleteRoute(registration),
    initialTokenRoute(registration),
  ]);
