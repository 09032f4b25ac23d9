import { PUSHED_REQUEST_TTL_SECONDS } from "../domain/oauth/pushed-authorization";
import type { TokenUseCases } from "../domain/oauth/token-endpoint";
import { AUTHORIZATION_PARAMETERS } from "../domain/oidc/authorization-request";
import { jsonResult, NO_STORE } from "../http/error-body";
import { type CommonCall, group, route } from "../http/route";
import { JWKS_MAX_AGE_SECONDS } from "../tokens/key-ring";
import { oauthError, tokenError } from "./schemas";

/** Form fields of the token endpoint; grant-specific rules are checked by the grant. */
export const tokenRequest = {
  type: "object",
  properties: {
    grant_type: {
      type: "string",
      description:
        "authorization_code, refresh_token, client_credentials, password, urn:svc:params:oauth:grant-type:qr, urn:ietf:params:oauth:grant-type:device_code or urn:ietf:params:oauth:grant-type:token-exchange, as the client is registered for",
    },
    code: { type: "string", maxLength: 128, description: "authorization_code: the code from the redirect" },
    redirect_uri: {
      type: "string",
      maxLength: 2048,
      description: "authorization_code: as in the authorization request",
    },
    code_verifier: { type: "string", maxLength: 128, description: "authorization_code: the PKCE verifier (RFC 7636)" },
    scope: { type: "string", description: "space-separated permissions (interface §5.3)" },
    username: { type: "string", maxLength: 256, description: "password grant: sub, e-mail or phone" },
    password: { type: "string", maxLength: 1024, description: "password grant" },
    otp: {
      type: "string",
      maxLength: 16,
      description: "password grant: second-factor code when required (TOTP, or the code sent for otp_channel)",
    },
    recovery_code: {
      type: "string",
      maxLength: 32,
      description: "password grant: a recovery code instead of otp; single use (interface §4.15a)",
    },
    otp_channel: {
      enum: ["email", "sms"],
      description:
        "password grant, right password, second factor required: sends a sign-in code to the confirmed e-mail or phone and answers invalid_grant saying where; then send it as otp. Only when the operator enabled that channel (docs/configuration.md secondFactor)",
    },
    new_password: { type: "string", maxLength: 1024, description: "password grant: when a change is forced" },
    refresh_token: { type: "string", maxLength: 512, description: "refresh_token grant" },
    device_code: {
      type: "string",
      maxLength: 128,
      description:
        "urn:ietf:params:oauth:grant-type:device_code: the device_code from POST /svc/oauth/device_authorization",
    },
    qr_code: {
      type: "string",
      maxLength: 64,
      description: "urn:svc:params:oauth:grant-type:qr: the code from POST /svc/oauth/qr",
    },
    resource: {
      type: "string",
      maxLength: 2048,
      description:
        "client_credentials, token exchange: the resource server (RFC 8707) the token is for, one of the client's registered resources; invalid_target otherwise",
    },
    subject_token: {
      type: "string",
      maxLength: 4096,
      description:
        "token exchange (RFC 8693): an access token of ours, issued to this client or for an audience of its exchangeFrom",
    },
    subject_token_type: {
      type: "string",
      maxLength: 256,
      description: "token exchange: urn:ietf:params:oauth:token-type:access_token, the only type taken",
    },
    actor_token: {
      type: "string",
      maxLength: 4096,
      description:
        "token exchange, delegation: an access token issued to this client itself; the new token's act names it",
    },
    actor_token_type: {
      type: "string",
      maxLength: 256,
      description: "token exchange, with actor_token only: urn:ietf:params:oauth:token-type:access_token",
    },
    requested_token_type: {
      type: "string",
      maxLength: 256,
      description: "token exchange: urn:ietf:params:oauth:token-type:access_token (the default, the only one issued)",
    },
    audience: {
      type: "string",
      maxLength: 2048,
      description: "token exchange: taken as resource; both sent must be the same",
    },
    client_id: { type: "string", description: "with client_secret, instead of HTTP Basic" },
    client_secret: { type: "string" },
  },
} as const;

export const tokenResponse = {
  type: "object",
  required: ["access_token", "token_type", "expires_in", "scope"],
  properties: {
    access_token: { type: "string" },
    token_type: {
      enum: ["Bearer", "DPoP"],
      description: "DPoP when the request carried a DPoP proof: the access token is bound to its key (cnf.jkt)",
    },
    expires_in: { type: "integer" },
    scope: { type: "string" },
    refresh_token: { type: "string", description: "user grants: single use, rotates" },
    issued_token_type: {
      const: "urn:ietf:params:oauth:token-type:access_token",
      description: "token exchange (RFC 8693 2.2.1) only",
    },
    id_token: {
      type: "string",
      description: "password grant, and authorization_code with scope openid: JWT with ua_id (the SVC-CI-UA-ID value)",
    },
  },
} as const;

/** POST /svc/oauth/qr form: the user permissions the QR login asks for. */
export const qrStartRequest = {
  type: "object",
  properties: {
    scope: { type: "string", description: "space-separated user permissions granted to the client" },
    client_id: { type: "string" },
    client_secret: { type: "string" },
  },
} as const;

export const qrStartResponse = {
  type: "object",
  required: ["qr_code", "qr_png", "expires_in", "interval"],
  properties: {
    qr_code: { type: "string" },
    qr_png: { type: "string", description: "base64 PNG of a QR code holding qr_code" },
    expires_in: { type: "integer" },
    interval: { type: "integer", description: "seconds between polls of the token endpoint" },
  },
} as const;

/** What the token endpoint's handlers read of the call. */
const callerOf = (call: CommonCall) => ({
  authorization: call.headers.authorization,
  uaId: call.headers["svc-ci-ua-id"],
  sourceIp: call.sourceIp,
  connectionIp: call.connectionIp,
  userAgent: call.userAgent,
  language: call.language,
  dpop: call.headers.dpop,
});

const issueRoute = (tokens: TokenRoutesUseCases) =>
  route({
    id: "token.issue",
    method: "POST",
    path: "/svc/oauth/te",
    version: "oauth",
    auth: "client",
    summary: "Issue an access token (OAuth 2.0 token endpoint)",
    description:
      "The one token endpoint (interface §5.2, docs/sign-in.md). Client authentication by HTTP Basic or by client_id and client_secret form fields (RFC 6749 2.3.1); a public client sends client_id alone and proves its code with PKCE. A grant the client is not registered for is unauthorized_client. With a DPoP header (RFC 9449) the access token is bound to the proof's key (token_type DPoP, cnf.jkt), and a public client's refresh token too. Errors per RFC 6749 5.2.",
    tags: ["tokens"],
    request: { body: { contentType: "form", schema: tokenRequest, required: true } },
    responses: {
      200: { description: "Token issued", schema: tokenResponse },
      400: {
        description:
          "invalid_request (also a token exchange's subject or actor token that is not valid or not acceptable, RFC 8693 2.2.2), invalid_grant, unauthorized_client, unsupported_grant_type, invalid_scope, invalid_target (a client_credentials or token exchange resource not registered for the client), invalid_dpop_proof, use_dpop_nonce (with a DPoP-Nonce header); QR polling (RFC 8628 3.5): authorization_pending, access_denied, expired_token, slow_down",
        schema: tokenError,
      },
      401: { description: "invalid_client", schema: oauthError },
      503: {
        description: "temporarily_unavailable: a hook the sign-in or token issue depends on failed (docs/hooks.md)",
        schema: oauthError,
      },
    },
    handler: async (call) => {
      const { tokens: body, dpopNonce } = await tokens.token.issue(call.body, callerOf(call));
      // RFC 9449 8: the nonce the client's next proof must carry rides on every answer.
      return jsonResult(200, body, { ...NO_STORE, ...(dpopNonce && { "dpop-nonce": dpopNonce }) });
    },
  });

const jwks = (tokens: TokenRoutesUseCases) =>
  route({
    id: "token.jwks",
    method: "GET",
    path: "/svc/.well-known/jwks.json",
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
    // Key rotation waits this long before a new key signs (lib/tokens/rotation.ts).
    handler: async () =>
      jsonResult(200, await tokens.jwks(), { "cache-control": `public, max-age=${JWKS_MAX_AGE_SECONDS}` }),
  });

const qrStart = (tokens: TokenRoutesUseCases) =>
  route({
    id: "token.qr-start",
    method: "POST",
    path: "/svc/oauth/qr",
    version: "oauth",
    auth: "client",
    summary: "Start a QR-code login (svc_qr_auth)",
    description:
      "Client authentication as at the token endpoint. Answers a code, its QR PNG and an expiry; a signed-in user's app confirms or refuses it (GET/POST /svc/api/v3/auth/qr/{qrCode}), and this client polls POST /svc/oauth/te with grant_type=urn:svc:params:oauth:grant-type:qr and qr_code: authorization_pending before a decision, access_denied after a refusal, expired_token after the expiry, the user's tokens once (RFC 8628 polling).",
    tags: ["tokens"],
    request: { body: { contentType: "form", schema: qrStartRequest, required: true } },
    responses: {
      200: { description: "Code started", schema: qrStartResponse },
      400: { description: "invalid_request, invalid_scope", schema: oauthError },
      401: { description: "invalid_client", schema: oauthError },
    },
    handler: async (call) =>
      jsonResult(200, await tokens.token.startQr(call.body, callerOf(call), Math.floor(Date.now() / 1000)), NO_STORE),
  });

export const deviceAuthorizationRequest = {
  type: "object",
  properties: {
    scope: {
      type: "string",
      description: "as in an authorization request: OpenID Connect scopes, user permissions, or a resource's own",
    },
    resource: { type: "string", maxLength: 2048, description: "the resource (RFC 8707) the tokens are for" },
    client_id: { type: "string" },
    client_secret: { type: "string" },
  },
} as const;

export const deviceAuthorizationResponse = {
  type: "object",
  required: ["device_code", "user_code", "verification_uri", "verification_uri_complete", "expires_in", "interval"],
  properties: {
    device_code: { type: "string", description: "the device keeps it and polls the token endpoint with it" },
    user_code: { type: "string", description: "what the device shows: eight consonants, XXXX-XXXX" },
    verification_uri: { type: "string", description: "the hosted page where the user types the code" },
    verification_uri_complete: { type: "string", description: "the same with the code filled in (for a QR code)" },
    expires_in: { type: "integer" },
    interval: { type: "integer", description: "seconds between polls" },
    qr_png: { type: "string", description: "ours: base64 PNG of a QR code holding verification_uri_complete" },
  },
} as const;

const deviceAuthorization = (tokens: TokenRoutesUseCases) =>
  route({
    id: "token.device-authorization",
    method: "POST",
    path: "/svc/oauth/device_authorization",
    version: "oauth",
    auth: "client",
    summary: "Device authorization endpoint (RFC 8628)",
    description:
      "Client authentication as at the token endpoint; the client must be registered for urn:ietf:params:oauth:grant-type:device_code. The device shows user_code (or verification_uri_complete as a QR code) and polls POST /svc/oauth/te with grant_type=urn:ietf:params:oauth:grant-type:device_code and device_code: authorization_pending until the user answers on the hosted device page, slow_down when it polls faster than interval, access_denied, expired_token, or the tokens once.",
    tags: ["tokens"],
    request: { body: { contentType: "form", schema: deviceAuthorizationRequest, required: true } },
    responses: {
      200: { description: "A device authorization started", schema: deviceAuthorizationResponse },
      400: { description: "invalid_request, invalid_scope, invalid_target, unauthorized_client", schema: oauthError },
      401: { description: "invalid_client", schema: oauthError },
    },
    handler: async (call) =>
      jsonResult(
        200,
        await tokens.token.startDevice(call.body, callerOf(call), Math.floor(Date.now() / 1000)),
        NO_STORE,
      ),
  });

/**
 * RFC 9126 2.1: the authorization request's parameters, with the client's authentication.
 * One bound for every field, not one per name: the validator stays one loop (the token
 * bundle's budget), and the stored item stays far below DynamoDB's 400 KB.
 */
export const pushedAuthorizationRequest = {
  type: "object",
  maxProperties: 32,
  properties: {
    ...Object.fromEntries(
      AUTHORIZATION_PARAMETERS.map((name) => [name, { description: "as at the authorization endpoint" }]),
    ),
    client_id: { description: "a public client, or with client_secret instead of HTTP Basic" },
    client_secret: { description: "with client_id, instead of HTTP Basic" },
  },
  patternProperties: { "": { type: "string", maxLength: 8192 } },
} as const;

export const pushedAuthorizationResponse = {
  type: "object",
  required: ["request_uri", "expires_in"],
  properties: {
    request_uri: {
      type: "string",
      description:
        "urn:ietf:params:oauth:request_uri:<reference>: send the browser to the authorization endpoint with it and client_id",
    },
    expires_in: { type: "integer", description: `seconds it stays usable (${PUSHED_REQUEST_TTL_SECONDS}), once` },
  },
} as const;

const pushedAuthorization = (tokens: TokenRoutesUseCases) =>
  route({
    id: "token.par",
    method: "POST",
    path: "/svc/oauth/par",
    version: "oauth",
    auth: "client",
    summary: "Pushed authorization request endpoint (RFC 9126)",
    description:
      "Client authentication as at the token endpoint (a public client sends client_id). The body holds the authorization request's parameters, checked as the authorization endpoint checks them; every refusal is a JSON error here, never a redirect. request_uri inside the request is refused. The answer's request_uri, with client_id, is then the whole query of GET /svc/oauth/authorize: once, within expires_in.",
    tags: ["sign-in"],
    request: { body: { contentType: "form", schema: pushedAuthorizationRequest, required: true } },
    responses: {
      201: { description: "The request stored under a one-time request_uri", schema: pushedAuthorizationResponse },
      400: {
        description:
          "invalid_request (an unregistered redirect_uri, request_uri inside, a client_id not the authenticated one, ...), invalid_scope, invalid_target, unauthorized_client, unsupported_response_type, request_not_supported",
        schema: oauthError,
      },
      401: { description: "invalid_client", schema: oauthError },
    },
    handler: async (call) =>
      jsonResult(201, await tokens.token.push(call.body, callerOf(call), Math.floor(Date.now() / 1000)), NO_STORE),
  });

/** What the token function's own routes are handed (functions/token.ts). */
export interface TokenRoutesUseCases {
  token: TokenUseCases;
  /** The public signing keys (JWKS). */
  jwks: () => Promise<unknown>;
}

export const tokenRoutes = (tokens: TokenRoutesUseCases) =>
  group("token", [
    issueRoute(tokens),
    jwks(tokens),
    qrStart(tokens),
    deviceAuthorization(tokens),
    pushedAuthorization(tokens),
  ]);
