import type { ClientAdministrator } from "../domain/clients/authority";
import { CLIENT_ID_PATTERN, GRANT_TYPES, ID_TOKEN_ALGS } from "../domain/clients/client";
import { type ClientUseCases, LIST_LIMITS } from "../domain/clients/management";
import { problems } from "../domain/errors";
import { jsonResult, NO_STORE } from "../http/error-body";
import { type CommonCall, group, route } from "../http/route";
import { adminChangeEvent } from "./admin-change";
import { badAccessToken, queryNumber, v3Error } from "./schemas";

/** Schemas of the clients calls (interface §4.17). */

const clientId = { type: "string", pattern: CLIENT_ID_PATTERN.source, description: "client id" } as const;

export const clientIdParam = {
  type: "object",
  required: ["clientId"],
  properties: { clientId },
} as const;

export const clientListQuery = {
  type: "object",
  additionalProperties: false,
  properties: {
    limit: {
      type: "string",
      pattern: "^(100|[1-9][0-9]?)$",
      description: `clients per page, 1-${LIST_LIMITS.maxLimit} (default ${LIST_LIMITS.defaultLimit})`,
    },
    after: { ...clientId, description: "the `next` of the previous page: clients after this id" },
  },
} as const;

const uriList = (description: string) =>
  ({
    type: "array",
    maxItems: 32,
    items: { type: "string", minLength: 1, maxLength: 2048 },
    description,
  }) as const;

/** The fields a change may send; each replaces the stored value. */
const changeable = {
  scopes: {
    type: "array",
    maxItems: 64,
    items: { type: "string", pattern: "^[A-Za-z0-9_-]{1,128}$" },
    description: "permissions the client may obtain (interface §5.3)",
  },
  grantTypes: {
    type: "array",
    maxItems: 8,
    items: { enum: GRANT_TYPES },
    description:
      "grants the token endpoint allows it (default: all but password; public: authorization_code refresh_token)",
  },
  redirectUris: uriList("exact addresses the authorization endpoint and binds return to"),
  postLogoutRedirectUris: uriList("where logout may return"),
  resources: uriList("audiences (RFC 8707) its access tokens may ask for"),
  exchangeFrom: uriList(
    "token exchange (RFC 8693): audiences of other clients' tokens it may exchange (the issuer: the management API); its own tokens always are",
  ),
  firstParty: { type: "boolean", description: "ours: the hosted pages skip the consent screen" },
  idTokenSignedResponseAlg: {
    enum: ID_TOKEN_ALGS,
    description: "id_token_signed_response_alg (OIDC Registration 2): how its ID tokens are signed, RS256 by default",
  },
  dpopBoundAccessTokens: {
    type: "boolean",
    description:
      "dpop_bound_access_tokens (RFC 9449 5.2, default false): every token request must carry a DPoP proof, so all its access tokens are bound to a key",
  },
  backchannelLogoutUri: {
    type: "string",
    maxLength: 2048,
    description:
      "OpenID Connect Back-Channel Logout: https (or http to a loopback host) address the logout tokens of its users' ended sessions are posted to; an empty string removes it",
  },
  requirePushedAuthorizationRequests: {
    type: "boolean",
    description:
      "require_pushed_authorization_requests (RFC 9126 6, default false): the authorization endpoint refuses its requests unless they come by a request_uri from POST /svc/oauth/par",
  },
  trustRelayedAddress: {
    type: "boolean",
    description:
      "confidential clients only (default false): its back end relays every user's password grant with the user's address in X-Forwarded-For, and failed guesses count against that address instead of the back end's (docs/administration.md)",
  },
} as const;

export const newClientBody = {
  type: "object",
  additionalProperties: false,
  required: ["scopes"],
  properties: {
    clientId: { ...clientId, description: "generated when absent" },
    public: { type: "boolean", description: "no secret: signs users in with PKCE alone" },
    ...changeable,
  },
} as const;

export const clientChangeBody = {
  type: "object",
  additionalProperties: false,
  minProperties: 1,
  properties: changeable,
} as const;

const stringList = { type: "array", items: { type: "string" } } as const;

const clientProperties = {
  clientId: { type: "string" },
  scopes: stringList,
  grantTypes: stringList,
  redirectUris: stringList,
  postLogoutRedirectUris: stringList,
  resources: stringList,
  exchangeFrom: stringList,
  public: { type: "boolean" },
  firstParty: { type: "boolean" },
  idTokenSignedResponseAlg: { enum: ID_TOKEN_ALGS },
  dpopBoundAccessTokens: { type: "boolean", description: "every token request must carry a DPoP proof" },
  backchannelLogoutUri: { type: "string", description: "present when set" },
  trustRelayedAddress: { type: "boolean", description: "password guesses count against the relayed address alone" },
  requirePushedAuthorizationRequests: {
    type: "boolean",
    description: "its authorization requests must be pushed (RFC 9126)",
  },
  hasRestPassword: { type: "boolean", description: "a v1/v2 REST password is set (svc-admin only)" },
  bootstrap: { type: "boolean", description: "written by npm start: the admin API leaves it alone" },
  registration: {
    type: "object",
    description:
      "present for a client that registered itself (RFC 7591): how it was let in (via open or token), its token_endpoint_auth_method, and what it said of itself (clientName, clientUri, contacts, ...)",
    properties: { via: { enum: ["open", "token"] }, clientName: { type: "string" } },
  },
  expiresAt: { type: "integer", description: "a registered client: removed at this time unless it gets tokens before" },
  createdAt: { type: "integer" },
  updatedAt: { type: "integer" },
} as const;

/** Fields every client shows; the others only when set. */
const shownAlways = Object.keys(clientProperties).filter(
  (name) => !["backchannelLogoutUri", "registration", "expiresAt"].includes(name),
);

export const clientView = {
  type: "object",
  required: shownAlways,
  properties: clientProperties,
} as const;

export const createdClient = {
  type: "object",
  required: shownAlways,
  properties: {
    ...clientProperties,
    clientSecret: { type: "string", description: "confidential clients only; shown this once, stored as a digest" },
  },
} as const;

export const clientPage = {
  type: "object",
  required: ["clients"],
  properties: {
    clients: { type: "array", items: clientView },
    next: { type: "string", description: "present when more may follow: pass it as `after`" },
  },
} as const;

export const newSecret = {
  type: "object",
  required: ["clientId", "clientSecret"],
  properties: {
    clientId: { type: "string" },
    clientSecret: { type: "string", description: "shown this once, stored as a digest" },
  },
} as const;

/** The calling application and what its token holds: the use cases decide what it may grant. */
function administrator(call: CommonCall): ClientAdministrator {
  const principal = call.principal;
  // The routes open to system tokens alone; this only narrows the type.
  if (principal?.mode !== "system") throw problems.badAccessToken("insufficient_scope");
  return { clientId: principal.clientId, holds: principal.scopes };
}

const wrongValues = { description: "wrong_values", schema: v3Error } as const;
/** A change beyond what the caller holds (interface §4.17). */
const notHeld = {
  description:
    "bad_access_token: a missing or wrong token, or insufficient_scope: the client has permissions (or firstParty, trustRelayedAddress) the caller's token does not hold; WWW-Authenticate names them",
  schema: v3Error,
} as const;
const unknownClient = { description: "unknown_client", schema: v3Error } as const;

/** Shared by every clients call: v3, system mode only. */
const clientsCall = { version: "v3", auth: "bearer", tags: ["clients"] } as const;
const reading = { system: ["svc_api_sys_clients"] } as const;
const changing = { system: ["svc_api_sys_clients_chg"] } as const;

const createRoute = (clients: ClientUseCases) =>
  route({
    id: "clients.create",
    method: "POST",
    path: "/svc/admin/api/v3/clients",
    ...clientsCall,
    permissions: changing,
    summary: "Register an application (interface §4.17)",
    description:
      "As `svc-admin clients create`, within what the caller holds: every system permission it grants, and svc_api_sys_clients_admin for administrative permissions, firstParty and trustRelayedAddress. A confidential client's secret is generated and answered this once; only its SHA-256 digest is stored. A public client gets none.",
    request: { body: { contentType: "json", schema: newClientBody, required: true } },
    responses: {
      201: { description: "Created, with clientSecret once", schema: createdClient },
      400: { description: "wrong_values, own_client", schema: v3Error },
      401: notHeld,
      409: { description: "client_exists", schema: v3Error },
    },
    handler: async (call) =>
      jsonResult(201, await clients.create(call.body, administrator(call), adminChangeEvent(call)), NO_STORE),
  });

const listRoute = (clients: ClientUseCases) =>
  route({
    id: "clients.list",
    method: "GET",
    path: "/svc/admin/api/v3/clients",
    ...clientsCall,
    permissions: reading,
    summary: "List applications in id order, a page at a time (interface §4.17)",
    description: "One Query of the index (eventually consistent: a client created a moment ago may be missing).",
    request: { query: clientListQuery },
    responses: {
      200: { description: "A page of clients; `next` while more may follow", schema: clientPage },
      400: wrongValues,
      401: badAccessToken,
    },
    handler: async (call) => {
      const limit = queryNumber(call.query.limit);
      return jsonResult(200, await clients.list(limit, call.query.after));
    },
  });

const getRoute = (clients: ClientUseCases) =>
  route({
    id: "clients.get",
    method: "GET",
    path: "/svc/admin/api/v3/clients/{clientId}",
    ...clientsCall,
    permissions: reading,
    summary: "Read an application (interface §4.17)",
    request: { params: clientIdParam },
    responses: {
      200: { description: "The client, without its secret", schema: clientView },
      400: wrongValues,
      401: badAccessToken,
      404: unknownClient,
    },
    handler: async (call) => jsonResult(200, await clients.read(call.params.clientId)),
  });

const changeRoute = (clients: ClientUseCases) =>
  route({
    id: "clients.change",
    method: "POST",
    path: "/svc/admin/api/v3/clients/{clientId}",
    ...clientsCall,
    permissions: changing,
    summary: "Change an application's permissions, grants and addresses (interface §4.17)",
    description:
      "Fields sent replace the stored ones, the rest stay; the client as it would be stored is checked as create checks it, and the caller must hold what the client holds before and after. A caller cannot widen its own client (own_client). Redirect URIs apply to the next authorization request.",
    request: { params: clientIdParam, body: { contentType: "json", schema: clientChangeBody, required: true } },
    responses: {
      200: { description: "The changed client", schema: clientView },
      400: { description: "wrong_values, bootstrap_client, own_client", schema: v3Error },
      401: notHeld,
      404: unknownClient,
      409: { description: "changed_concurrently", schema: v3Error },
    },
    handler: async (call) => {
      const event = adminChangeEvent(call, { fields: Object.keys(call.body) });
      return jsonResult(200, await clients.change(call.params.clientId, call.body, administrator(call), event));
    },
  });

const rotateRoute = (clients: ClientUseCases) =>
  route({
    id: "clients.rotate-secret",
    method: "POST",
    path: "/svc/admin/api/v3/clients/{clientId}/secret/rotate",
    ...clientsCall,
    permissions: changing,
    summary: "Replace an application's secret (interface §4.17)",
    description:
      "The new secret is answered this once; the old one stops working with this write, in warm functions within clients.cacheSeconds. The secret carries the client's permissions, so the caller must hold them.",
    request: { params: clientIdParam },
    responses: {
      200: { description: "The new secret", schema: newSecret },
      400: { description: "public_client, bootstrap_client", schema: v3Error },
      401: notHeld,
      404: unknownClient,
      409: { description: "changed_concurrently", schema: v3Error },
    },
    handler: async (call) =>
      jsonResult(
        200,
        await clients.rotateSecret(call.params.clientId, administrator(call), adminChangeEvent(call)),
        NO_STORE,
      ),
  });

const deleteRoute = (clients: ClientUseCases) =>
  route({
    id: "clients.delete",
    method: "DELETE",
    path: "/svc/admin/api/v3/clients/{clientId}",
    recentSignIn: true,
    ...clientsCall,
    permissions: changing,
    summary: "Delete an application (interface §4.17)",
    description:
      "Its client authentication fails from now on (in warm functions within clients.cacheSeconds), so it gets no new tokens and refreshes none; access tokens already issued live until they expire. The caller must hold what the client holds.",
    request: { params: clientIdParam },
    responses: {
      204: { description: "Deleted" },
      400: { description: "bootstrap_client", schema: v3Error },
      401: notHeld,
      404: unknownClient,
      409: { description: "changed_concurrently", schema: v3Error },
    },
    handler: async (call) => {
      await clients.remove(call.params.clientId, administrator(call), adminChangeEvent(call));
      return jsonResult(204, undefined);
    },
  });

export const clientsRoutes = (clients: ClientUseCases) =>
  group("clients", [
    createRoute(clients),
    listRoute(clients),
    getRoute(clients),
    changeRoute(clients),
    rotateRoute(clients),
    deleteRoute(clients),
  ]);
