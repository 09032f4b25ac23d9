import { config } from "../config/current";
import { codeGrantDeps, loginDeps, metrics, passwordLoginDeps, services } from "../container";
import { type ClientRecord, GRANT, GRANT_TYPES } from "../domain/clients/client";
import { OAuthError } from "../domain/errors";
import { passwordGrant } from "../domain/login/password-grant";
import { QR_GRANT, qrGrant, startQrLogin } from "../domain/login/qr-login";
import { refreshGrant } from "../domain/login/refresh-grant";
import { authenticateClient, presentedClient, requireGrant } from "../domain/oauth/client-authentication";
import { clientCredentialsGrant } from "../domain/oauth/client-credentials";
import { authorizationCodeGrant } from "../domain/oidc/code-grant";
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
        "authorization_code, refresh_token, client_credentials, password or urn:svc:params:oauth:grant-type:qr, as the client is registered for",
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
    qr_code: {
      type: "string",
      maxLength: 64,
      description: "urn:svc:params:oauth:grant-type:qr: the code from POST /svc/oauth/qr",
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
    token_type: { const: "Bearer" },
    expires_in: { type: "integer" },
    scope: { type: "string" },
    refresh_token: { type: "string", description: "user grants: single use, rotates" },
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

/**
 * The addresses a password guess counts against: the connection's; the relayed one too when
 * an application that proved itself (not a public client) vouches for it. An application
 * trusted to relay (trustRelayedAddress) is its users' connection: the relayed address alone
 * counts, so its back end's address is not one counter shared by all its users.
 */
function guessAddresses(call: CommonCall, client: Pick<ClientRecord, "public" | "trustRelayedAddress">): string[] {
  const connection = call.connectionIp ?? "unknown";
  const relayed = !client.public && call.sourceIp && call.sourceIp !== connection ? call.sourceIp : undefined;
  if (!relayed) return [connection];
  return client.trustRelayedAddress ? [relayed] : [connection, relayed];
}

/** The token endpoint: client authentication, then the grant the form names; issued tokens counted by grant. */
async function issueToken(call: CommonCall & { body: Readonly<Record<string, unknown>> }) {
  const form = call.body;
  if (form.grant_type === undefined) throw new OAuthError("invalid_request", "grant_type is required");
  const client = await authenticateClient(
    services().clientCredentials,
    presentedClient(call.headers.authorization, form),
  );
  if (GRANT_TYPES.includes(String(form.grant_type))) requireGrant(client, String(form.grant_type));
  const result = await grantTokens(call, form, client);
  // Only grants the switch knows reach here, so the dimension's values stay few.
  metrics.count("TokensIssued", { grant: String(form.grant_type) });
  return result;
}

async function grantTokens(
  call: CommonCall,
  form: Readonly<Record<string, unknown>>,
  client: Awaited<ReturnType<typeof authenticateClient>>,
) {
  switch (form.grant_type) {
    case GRANT.authorizationCode:
      return jsonResult(200, await authorizationCodeGrant(client, form, codeGrantDeps()), NO_STORE);
    case "client_credentials":
      return jsonResult(
        200,
        await clientCredentialsGrant(
          services().accessTokens,
          client,
          form.scope,
          config().settings.tokens.accessTtlSeconds,
        ),
        NO_STORE,
      );
    case "password":
      return jsonResult(
        200,
        await passwordGrant(
          client,
          {
            username: form.username,
            password: form.password,
            scope: form.scope,
            otp: form.otp,
            recoveryCode: form.recovery_code,
            otpChannel: form.otp_channel,
            language: call.language,
            newPassword: form.new_password,
            uaId: call.headers["svc-ci-ua-id"],
            // The user's own address and browser, as the application relays them (interface §5.1).
            ip: call.sourceIp ?? "unknown",
            addresses: guessAddresses(call, client),
            userAgent: call.userAgent ?? "unknown",
          },
          passwordLoginDeps(),
        ),
        NO_STORE,
      );
    case "refresh_token":
      return jsonResult(200, await refreshGrant(client, form.refresh_token, loginDeps()), NO_STORE);
    case QR_GRANT:
      return jsonResult(
        200,
        await qrGrant(
          services().qrLogins,
          client,
          form.qr_code,
          {
            uaId: call.headers["svc-ci-ua-id"],
            ip: call.sourceIp ?? "unknown",
            userAgent: call.userAgent ?? "unknown",
          },
          { ...loginDeps(), accounts: services().accounts },
        ),
        NO_STORE,
      );
    default:
      throw new OAuthError("unsupported_grant_type", "this grant_type is not supported");
  }
}

/** A QR-code login, started by the desktop application. */
async function startQr(call: CommonCall & { body: Readonly<Record<string, unknown>> }) {
  const form = call.body;
  const client = await authenticateClient(
    services().clientCredentials,
    presentedClient(call.headers.authorization, form),
  );
  requireGrant(client, GRANT.qr);
  const started = await startQrLogin(
    services().qrLogins,
    client,
    form.scope,
    { ip: call.sourceIp, userAgent: call.userAgent },
    Math.floor(Date.now() / 1000),
  );
  return jsonResult(200, started, NO_STORE);
}

const issueRoute = route({
  id: "token.issue",
  method: "POST",
  path: "/svc/oauth/te",
  version: "oauth",
  auth: "client",
  summary: "Issue an access token (OAuth 2.0 token endpoint)",
  description:
    "The one token endpoint (interface §5.2, docs/sign-in.md). Client authentication by HTTP Basic or by client_id and client_secret form fields (RFC 6749 2.3.1); a public client sends client_id alone and proves its code with PKCE. A grant the client is not registered for is unauthorized_client. Errors per RFC 6749 5.2.",
  tags: ["tokens"],
  request: { body: { contentType: "form", schema: tokenRequest, required: true } },
  responses: {
    200: { description: "Token issued", schema: tokenResponse },
    400: {
      description:
        "invalid_request, invalid_grant, unauthorized_client, unsupported_grant_type, invalid_scope; QR polling (RFC 8628 3.5): authorization_pending, access_denied, expired_token, slow_down",
      schema: tokenError,
    },
    401: { description: "invalid_client", schema: oauthError },
    503: {
      description: "temporarily_unavailable: a hook the sign-in or token issue depends on failed (docs/hooks.md)",
      schema: oauthError,
    },
  },
  handler: issueToken,
});

const jwks = route({
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
    jsonResult(200, await services().keyRing.jwks(), { "cache-control": `public, max-age=${JWKS_MAX_AGE_SECONDS}` }),
});

const qrStart = route({
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
  handler: startQr,
});

export const tokenRoutes = group("token", [issueRoute, jwks, qrStart]);
