import { problems } from "../domain/errors";
import { MAX_ROLES } from "../domain/organizations/organizations";
import type { SsoUseCases } from "../domain/organizations/sso";
import { RIGHT_NAME_PATTERN } from "../domain/rights/catalogue";
import { jsonResult } from "../http/error-body";
import { group, route } from "../http/route";
import { callerOf, notFound, orgCall, orgParams, RIGHTS_PERMISSION } from "./organizations";
import { badAccessToken, v3Error } from "./schemas";

/** An organization's own OpenID Connect provider (docs/organizations.md, "Single sign-on per organization"). */

const claimName = { type: "string", pattern: "^[A-Za-z0-9_:.-]{1,64}$" } as const;
const claims = {
  type: "object",
  additionalProperties: false,
  properties: { email: claimName, emailVerified: claimName, givenName: claimName, familyName: claimName },
  description: "the ID token claims read into the account (defaults: email, email_verified, given_name, family_name)",
} as const;
const scopes = {
  type: "array",
  minItems: 1,
  maxItems: 20,
  items: { type: "string", pattern: "^[\\x21\\x23-\\x5b\\x5d-\\x7e]{1,64}$" },
  description: "asked of the provider; must include openid (default: openid email profile)",
} as const;
const defaultRoles = {
  type: "array",
  maxItems: MAX_ROLES,
  items: { type: "string", pattern: RIGHT_NAME_PATTERN },
  description: "roles a member joined by its first SSO sign-in holds (rights over the organization's group)",
} as const;

export const ssoBody = {
  type: "object",
  required: ["issuer", "clientId", "clientSecret"],
  additionalProperties: false,
  properties: {
    issuer: {
      type: "string",
      minLength: 8,
      maxLength: 2048,
      description: "the provider's issuer; <issuer>/.well-known/openid-configuration is read at once (https)",
    },
    clientId: { type: "string", minLength: 1, maxLength: 256 },
    clientSecret: {
      type: "string",
      minLength: 1,
      maxLength: 1024,
      description: "stored sealed; never returned",
    },
    scopes,
    claims,
    defaultRoles,
    enabled: { type: "boolean", description: "default true" },
  },
} as const;

export const ssoView = {
  type: "object",
  required: ["orgId", "issuer", "clientId", "scopes", "claims", "defaultRoles", "enabled", "callbackUrl"],
  properties: {
    orgId: { type: "string" },
    issuer: { type: "string" },
    clientId: { type: "string" },
    scopes: { type: "array", items: { type: "string" } },
    claims: { type: "object" },
    defaultRoles: { type: "array", items: { type: "string" } },
    enabled: { type: "boolean" },
    updatedAt: { type: "integer" },
    callbackUrl: { type: "string", description: "register it at the provider as a redirect URI" },
  },
} as const;

const ssoNotFound = {
  description: "group_not_found (no such organization, or one the caller does not administer); sso_not_configured",
  schema: v3Error,
} as const;

const putSso = (sso: SsoUseCases) =>
  route({
    id: "orgs.sso-put",
    method: "PUT",
    path: "/svc/api/v3/orgs/{orgId}/sso",
    ...orgCall,
    event: { type: "orgs.sso-put", inTransaction: true },
    summary: "Create or replace the organization's single sign-on connection (OpenID Connect)",
    description:
      "Reads the issuer's discovery document now and keeps its endpoints; the client secret is sealed and never returned. Default roles are checked like member roles, in the same transaction as the write; an application naming default roles needs svc_rights_full_access besides svc_groups.",
    request: { params: orgParams, body: { contentType: "json", schema: ssoBody, required: true } },
    prefetch: (caller) => sso.adminPrefetch(caller.sub, caller.params.orgId),
    responses: {
      200: { description: "The connection, without its secret", schema: ssoView },
      400: { description: "input_error; process_error sso_discovery_failed, unknown_right", schema: v3Error },
      401: badAccessToken,
      404: notFound,
      409: { description: "changed_concurrently", schema: v3Error },
    },
    handler: async (call) => {
      const principal = call.principal;
      // Default roles are rights granted later: an application names them with the rights API's permission.
      if (
        principal?.mode === "system" &&
        (call.body.defaultRoles?.length ?? 0) > 0 &&
        !principal.scopes.has(RIGHTS_PERMISSION)
      ) {
        throw problems.badAccessToken("insufficient_scope", { error: "insufficient_scope", scope: RIGHTS_PERMISSION });
      }
      return jsonResult(200, await sso.configure(callerOf(call), call.params.orgId, call.body));
    },
  });

const getSso = (sso: SsoUseCases) =>
  route({
    id: "orgs.sso-get",
    method: "GET",
    path: "/svc/api/v3/orgs/{orgId}/sso",
    ...orgCall,
    summary: "The organization's single sign-on connection, without its secret",
    request: { params: orgParams },
    prefetch: (caller) => sso.adminPrefetch(caller.sub, caller.params.orgId),
    responses: {
      200: { description: "The connection", schema: ssoView },
      400: { description: "input_error", schema: v3Error },
      401: badAccessToken,
      404: ssoNotFound,
    },
    handler: async (call) => jsonResult(200, await sso.read(callerOf(call), call.params.orgId)),
  });

const deleteSso = (sso: SsoUseCases) =>
  route({
    id: "orgs.sso-delete",
    method: "DELETE",
    path: "/svc/api/v3/orgs/{orgId}/sso",
    ...orgCall,
    // Enforcement and its proof go with it: a console operator must have signed in recently.
    recentSignIn: true,
    event: { type: "orgs.sso-delete", inTransaction: true },
    summary: "Remove the organization's single sign-on connection",
    description: "Accounts created by it stay, with their links; its domain's addresses can no longer sign in by it.",
    request: { params: orgParams },
    prefetch: (caller) => sso.adminPrefetch(caller.sub, caller.params.orgId),
    responses: {
      204: { description: "Removed" },
      400: { description: "input_error", schema: v3Error },
      401: badAccessToken,
      404: ssoNotFound,
      409: { description: "changed_concurrently", schema: v3Error },
    },
    handler: async (call) => {
      await sso.remove(callerOf(call), call.params.orgId);
      return jsonResult(204, undefined);
    },
  });

export const organizationSsoRoutes = (sso: SsoUseCases) =>
  group(
    "groups",
    [putSso, getSso, deleteSso].map((r) => r(sso)),
  );
