import type { ScimConnectionUseCases } from "../domain/scim/connection";
import { jsonResult, NO_STORE } from "../http/error-body";
import { group, route } from "../http/route";
import { callerOf, notFound, orgCall, orgParams } from "./organizations";
import { badAccessToken, v3Error } from "./schemas";

/** An organization's SCIM connection (docs/scim.md): the token its identity provider presents. */

const connectionView = {
  type: "object",
  required: ["orgId", "baseUrl", "tokenHint", "createdAt", "rotatedAt"],
  properties: {
    orgId: { type: "string" },
    baseUrl: { type: "string", description: "the SCIM base URL to configure at the provider" },
    tokenHint: { type: "string", description: "the token's last four characters" },
    createdAt: { type: "integer" },
    rotatedAt: { type: "integer" },
  },
} as const;

const withToken = {
  ...connectionView,
  required: [...connectionView.required, "token"],
  properties: {
    ...connectionView.properties,
    token: { type: "string", description: "the bearer token, shown only in this answer" },
  },
} as const;

const scimNotFound = {
  description: "group_not_found (no such organization, or one the caller does not administer); scim_not_configured",
  schema: v3Error,
} as const;

const rotateToken = (scim: ScimConnectionUseCases) =>
  route({
    id: "orgs.scim-token",
    method: "POST",
    path: "/svc/api/v3/orgs/{orgId}/scim/token",
    ...orgCall,
    recentSignIn: true,
    event: { type: "orgs.scim-token", inTransaction: true },
    summary: "Create the organization's SCIM token, or replace it",
    description:
      "A new bearer token for the organization's identity provider, shown once; the one before stops working in the same write.",
    request: { params: orgParams },
    prefetch: (caller) => scim.adminPrefetch(caller.sub, caller.params.orgId),
    responses: {
      201: { description: "The connection with its new token", schema: withToken },
      400: { description: "input_error", schema: v3Error },
      401: badAccessToken,
      404: notFound,
      409: { description: "changed_concurrently", schema: v3Error },
    },
    handler: async (call) => jsonResult(201, await scim.rotate(callerOf(call), call.params.orgId), NO_STORE),
  });

const getConnection = (scim: ScimConnectionUseCases) =>
  route({
    id: "orgs.scim-get",
    method: "GET",
    path: "/svc/api/v3/orgs/{orgId}/scim",
    ...orgCall,
    summary: "The organization's SCIM connection, without its token",
    request: { params: orgParams },
    prefetch: (caller) => scim.adminPrefetch(caller.sub, caller.params.orgId),
    responses: {
      200: { description: "The connection", schema: connectionView },
      400: { description: "input_error", schema: v3Error },
      401: badAccessToken,
      404: scimNotFound,
    },
    handler: async (call) => jsonResult(200, await scim.read(callerOf(call), call.params.orgId)),
  });

const deleteConnection = (scim: ScimConnectionUseCases) =>
  route({
    id: "orgs.scim-delete",
    method: "DELETE",
    path: "/svc/api/v3/orgs/{orgId}/scim",
    ...orgCall,
    recentSignIn: true,
    event: { type: "orgs.scim-delete", inTransaction: true },
    summary: "Remove the organization's SCIM connection",
    description: "Its token stops working at once; the users it provisioned stay as they are.",
    request: { params: orgParams },
    prefetch: (caller) => scim.adminPrefetch(caller.sub, caller.params.orgId),
    responses: {
      204: { description: "Removed" },
      400: { description: "input_error", schema: v3Error },
      401: badAccessToken,
      404: scimNotFound,
      409: { description: "changed_concurrently", schema: v3Error },
    },
    handler: async (call) => {
      await scim.remove(callerOf(call), call.params.orgId);
      return jsonResult(204, undefined);
    },
  });

export const organizationScimRoutes = (scim: ScimConnectionUseCases) =>
  group(
    "groups",
    [rotateToken, getConnection, deleteConnection].map((r) => r(scim)),
  );
