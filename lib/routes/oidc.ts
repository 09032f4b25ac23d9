import { config } from "../config";
import { GRANT_TYPES } from "../domain/clients/client";
import { oauthDescription } from "../domain/errors";
import { DPOP_ALGS } from "../domain/oauth/dpop";
import type { OidcUseCases } from "../domain/oidc/oidc-endpoints";
import { RELEASABLE_CLAIMS } from "../domain/oidc/scopes";
import { OIDC_SCOPES, USER_PERMISSIONS } from "../domain/permissions";
import { jsonResult, NO_STORE } from "../http/error-body";
import { publicUrl } from "../http/public-url";
import { RESOURCE_METADATA_PATH } from "../http/resource-metadata";
import { type CommonCall, group, type HttpResult, route } from "../http/route";
import { ACR_MFA, ACR_PASSWORD } from "../tokens/access-token";
import { SIGNING_ALGS } from "../tokens/key-ring";
import { oauthError } from "./schemas";

/** An endpoint's address under the issuer of this moment. */
export const endpointUrl = (path: string): string => publicUrl(config().issuer, path);

const CLIENT_AUTH_METHODS = ["client_secret_basic", "client_secret_post"];

/** OpenID Connect Discovery 1.0 and RFC 8414 metadata: one document. */
function metadata() {
  return {
    issuer: config().issuer,
    authorization_endpoint: endpointUrl("/svc/oauth/authorize"),
    token_endpoint: endpointUrl("/svc/oauth/te"),
    userinfo_endpoint: endpointUrl("/svc/oauth/userinfo"),
    jwks_uri: endpointUrl("/svc/.well-known/jwks.json"),
    revocation_endpoint: endpointUrl("/svc/oauth/revoke"),
    introspection_endpoint: endpointUrl("/svc/oauth/introspect"),
    end_session_endpoint: endpointUrl("/svc/oauth/logout"),
    device_authorization_endpoint: endpointUrl("/svc/oauth/device_authorization"),
    pushed_authorization_request_endpoint: endpointUrl("/svc/oauth/par"),
    ...(config().settings.clientRegistration.mode !== "off" && {
      registration_endpoint: endpointUrl("/svc/oauth/clients"),
    }),
    scopes_supported: [...OIDC_SCOPES, ...USER_PERMISSIONS],
    response_types_supported: ["code"],
    response_modes_supported: ["query", "form_post"],
    grant_types_supported: GRANT_TYPES,
    subject_types_supported: ["public"],
    id_token_signing_alg_values_supported: [...SIGNING_ALGS],
    token_endpoint_auth_methods_supported: [...CLIENT_AUTH_METHODS, "none"],
    revocation_endpoint_auth_methods_supported: [...CLIENT_AUTH_METHODS, "none"],
    introspection_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
    code_challenge_methods_supported: ["S256"],
    dpop_signing_alg_values_supported: [...DPOP_ALGS],
    prompt_values_supported: ["none", "login", "consent"],
    acr_values_supported: [ACR_PASSWORD, ACR_MFA],
    claims_supported: [
      "sub",
      "iss",
      "aud",
      "exp",
      "iat",
      "auth_time",
      "nonce",
      "acr",
      "amr",
      "at_hash",
      "sid",
      "ua_id",
      // A request that names an organization (organization=<id>, docs/organizations.md).
      "org_id",
      "org_roles",
      ...RELEASABLE_CLAIMS,
    ],
    claims_parameter_supported: true,
    request_parameter_supported: false,
    request_uri_parameter_supported: false,
    // A client may still be made to push (its require_pushed_authorization_requests); the server does not ask it of all.
    require_pushed_authorization_requests: false,
    authorization_response_iss_parameter_supported: true,
    client_id_metadata_document_supported: config().settings.clientRegistration.metadataDocuments,
    backchannel_logout_supported: true,
    backchannel_logout_session_supported: true,
    ui_locales_supported: ["ru", "en"],
  };
}

const metadataSchema = {
  type: "object",
  required: ["issuer", "authorization_endpoint", "token_endpoint", "jwks_uri", "response_types_supported"],
  properties: { issuer: { type: "string" }, authorization_endpoint: { type: "string" } },
} as const;

const discovery = route({
  id: "oidc.discovery",
  method: "GET",
  path: "/svc/.well-known/openid-configuration",
  version: "meta",
  auth: "none",
  summary: "OpenID Connect Discovery 1.0 metadata",
  tags: ["sign-in"],
  responses: { 200: { description: "Provider metadata", schema: metadataSchema } },
  handler: async () => jsonResult(200, metadata(), { "cache-control": "public, max-age=300" }),
});

const authorizationServerMetadata = route({
  id: "oidc.oauth-metadata",
  method: "GET",
  path: "/.well-known/oauth-authorization-server/svc",
  version: "meta",
  auth: "none",
  summary: "RFC 8414 authorization server metadata (the same document)",
  tags: ["sign-in"],
  responses: { 200: { description: "Server metadata", schema: metadataSchema } },
  handler: async () => jsonResult(200, metadata(), { "cache-control": "public, max-age=300" }),
});

/** RFC 9728 2: the management API as a protected resource, named by the issuer. */
function resourceMetadata() {
  const issuer = config().issuer;
  return {
    resource: issuer,
    authorization_servers: [issuer],
    // What a client asks for on a user's behalf; system permissions come with client_credentials.
    scopes_supported: [...USER_PERMISSIONS],
    bearer_methods_supported: ["header"],
    // RFC 9449 7: DPoP-bound tokens are taken too, with a proof of their key.
    dpop_signing_alg_values_supported: [...DPOP_ALGS],
    resource_name: "svc-identity management API",
    resource_documentation: endpointUrl("/svc/api/openapi.json"),
  };
}

const protectedResourceMetadata = route({
  id: "oidc.resource-metadata",
  method: "GET",
  path: RESOURCE_METADATA_PATH,
  version: "meta",
  auth: "none",
  summary: "RFC 9728 protected resource metadata of the management API",
  description:
    "Named by `resource_metadata` in the API's Bearer challenges. Its `resource` is the issuer: a token request naming it gets the management API's audience.",
  tags: ["sign-in"],
  responses: {
    200: {
      description: "Resource metadata",
      schema: {
        type: "object",
        required: ["resource", "authorization_servers"],
        properties: {
          resource: { type: "string" },
          authorization_servers: { type: "array", items: { type: "string" } },
        },
      },
    },
  },
  handler: async () => jsonResult(200, resourceMetadata(), { "cache-control": "public, max-age=300" }),
});

/** RFC 6750 3 (RFC 9449 7.1 for DPoP): the error travels in the challenge; the body carries the same. */
function tokenRefusal(error: "invalid_token" | "invalid_dpop_proof", description: string, scheme: string): HttpResult {
  const challenge =
    scheme === "dpop" ? `DPoP error="${error}", algs="${DPOP_ALGS.join(" ")}"` : `Bearer realm="svc", error="${error}"`;
  return jsonResult(
    401,
    { error, error_description: oauthDescription(description) },
    { ...NO_STORE, "www-authenticate": challenge },
  );
}

async function userInfo(oidc: OidcUseCases, call: CommonCall, form?: { access_token?: string }) {
  const { headers } = call;
  const presented = /^(Bearer|DPoP)\s+(\S+)$/i.exec(headers.authorization ?? "");
  const token = presented?.[2] || form?.access_token;
  const scheme = presented?.[1].toLowerCase() === "dpop" ? "dpop" : "bearer";
  // RFC 6750 3.1: no credentials, no error code in the challenge.
  if (!token)
    return jsonResult(
      401,
      { error: "invalid_request", error_description: "an access token is required" },
      { ...NO_STORE, "www-authenticate": 'Bearer realm="svc"' },
    );
  const answer = await oidc.userInfo(token, {
    scheme,
    proof: headers.dpop,
    method: call.route.method,
    url: endpointUrl(call.route.path),
  });
  if (answer.ok) return jsonResult(200, answer.claims, NO_STORE);
  if (answer.error !== "insufficient_scope") return tokenRefusal(answer.error, answer.description, scheme);
  return jsonResult(
    403,
    { error: "insufficient_scope", error_description: "the token was not issued for scope openid" },
    { ...NO_STORE, "www-authenticate": 'Bearer realm="svc", error="insufficient_scope", scope="openid"' },
  );
}

const userInfoResponse = {
  type: "object",
  required: ["sub"],
  properties: {
    sub: { type: "string" },
    name: { type: "string" },
    family_name: { type: "string" },
    given_name: { type: "string" },
    middle_name: { type: "string" },
    email: { type: "string" },
    email_verified: { type: "boolean" },
    phone_number: { type: "string" },
    phone_number_verified: { type: "boolean" },
  },
} as const;

const userInfoResponses = {
  200: { description: "Claims by scope: profile, email, phone (OIDC Core 5.4)", schema: userInfoResponse },
  401: { description: "invalid_token (RFC 6750), with WWW-Authenticate", schema: oauthError },
  403: { description: "insufficient_scope: the token lacks openid", schema: oauthError },
};

const userInfoGet = (oidc: OidcUseCases) =>
  route({
    id: "oidc.userinfo",
    method: "GET",
    path: "/svc/oauth/userinfo",
    version: "oauth",
    auth: "none",
    summary: "OpenID Connect UserInfo (bearer access token with scope openid)",
    tags: ["sign-in"],
    responses: userInfoResponses,
    handler: async (call) => userInfo(oidc, call),
  });

const accessTokenForm = {
  type: "object",
  properties: { access_token: { type: "string", maxLength: 4096 } },
} as const;

const userInfoPost = (oidc: OidcUseCases) =>
  route({
    id: "oidc.userinfo-post",
    method: "POST",
    path: "/svc/oauth/userinfo",
    version: "oauth",
    auth: "none",
    summary: "OpenID Connect UserInfo by POST (RFC 6750 2.1 or 2.2)",
    tags: ["sign-in"],
    request: { body: { contentType: "form", schema: accessTokenForm } },
    responses: userInfoResponses,
    handler: async (call) => userInfo(oidc, call, call.body),
  });

const tokenForm = {
  type: "object",
  required: ["token"],
  properties: {
    token: { type: "string", minLength: 1, maxLength: 4096 },
    token_type_hint: { enum: ["access_token", "refresh_token"] },
    client_id: { type: "string" },
    client_secret: { type: "string" },
  },
} as const;

const introspection = (oidc: OidcUseCases) =>
  route({
    id: "oidc.introspect",
    method: "POST",
    path: "/svc/oauth/introspect",
    version: "oauth",
    auth: "client",
    summary: "Token introspection (RFC 7662), for authenticated confidential clients",
    description:
      'A user token is active only while its session lives: after a sessions reset, a deleted device, a withdrawn consent or a revocation it answers {"active": false} at once. A client learns only about its own tokens, and about access tokens whose audience is one of its registered resources (RFC 7662 4); any other token answers {"active": false}.',
    tags: ["sign-in"],
    request: { body: { contentType: "form", schema: tokenForm, required: true } },
    responses: {
      200: {
        description: "{active} and, when active, the token's claims",
        schema: { type: "object", required: ["active"], properties: { active: { type: "boolean" } } },
      },
      400: { description: "invalid_request", schema: oauthError },
      401: { description: "invalid_client", schema: oauthError },
    },
    handler: async (call) => jsonResult(200, await oidc.introspect(call.headers.authorization, call.body), NO_STORE),
  });

const revocation = (oidc: OidcUseCases) =>
  route({
    id: "oidc.revoke",
    method: "POST",
    path: "/svc/oauth/revoke",
    version: "oauth",
    auth: "client",
    summary: "Token revocation (RFC 7009)",
    description:
      "Ends the session of the calling client's refresh or user access token, so every token of that session is refused at once. Always 200 for a token that is not the client's or not known. System tokens (client_credentials) live until they expire.",
    tags: ["sign-in"],
    request: { body: { contentType: "form", schema: tokenForm, required: true } },
    responses: {
      200: { description: "Revoked, or nothing to revoke" },
      400: { description: "invalid_request", schema: oauthError },
      401: { description: "invalid_client", schema: oauthError },
    },
    handler: async (call) => {
      await oidc.revoke(call.headers.authorization, call.body);
      return { statusCode: 200, headers: { ...NO_STORE }, body: "" };
    },
  });

export const oidcRoutes = (oidc: OidcUseCases) =>
  group("token", [
    discovery,
    authorizationServerMetadata,
    protectedResourceMetadata,
    userInfoGet(oidc),
    userInfoPost(oidc),
    introspection(oidc),
    revocation(oidc),
  ]);
