import type { ResourceUseCases } from "../domain/resources/management";
import { RESOURCE_CONSENTS } from "../domain/resources/resource";
import { jsonResult } from "../http/error-body";
import { group, route } from "../http/route";
import { adminChangeEvent } from "./admin-change";
import { badAccessToken, v3Error } from "./schemas";

/** Schemas of the protected-resource calls (docs/sign-in.md "Protected resources"). */

const resourceIdParam = {
  type: "object",
  required: ["resourceId"],
  properties: {
    resourceId: {
      type: "string",
      pattern: "^[A-Za-z0-9_-]{1,2800}$",
      description: "the resource's id: its URI in base64url, as list and create answer it",
    },
  },
} as const;

const definition = {
  name: { type: "string", minLength: 1, maxLength: 128, description: "shown on the consent page" },
  scopes: {
    type: "array",
    maxItems: 64,
    items: {
      type: "object",
      additionalProperties: false,
      required: ["name"],
      properties: {
        name: { type: "string", minLength: 1, maxLength: 128 },
        description: {
          type: "string",
          minLength: 1,
          maxLength: 256,
          description: "what the consent page says it allows",
        },
      },
    },
    description: "the scopes its tokens may carry; a request for it names some, or gets them all",
  },
  consent: {
    enum: RESOURCE_CONSENTS,
    description:
      "user: any client may ask on a user's behalf, and the user consents (agents, registered clients); operator: only clients that list it in their resources",
  },
} as const;

const newResourceBody = {
  type: "object",
  additionalProperties: false,
  required: ["uri", "name", "scopes", "consent"],
  properties: {
    uri: {
      type: "string",
      minLength: 1,
      maxLength: 2048,
      description: "the resource indicator (RFC 8707): https (http to a loopback host), no fragment; its tokens' aud",
    },
    ...definition,
  },
} as const;

const resourceChangeBody = {
  type: "object",
  additionalProperties: false,
  required: ["name", "scopes", "consent"],
  properties: definition,
} as const;

const resourceView = {
  type: "object",
  required: ["id", "uri", "name", "scopes", "consent", "createdAt", "updatedAt"],
  properties: {
    id: { type: "string" },
    uri: { type: "string" },
    name: { type: "string" },
    scopes: { type: "array", items: { type: "object", properties: { name: { type: "string" } } } },
    consent: { enum: RESOURCE_CONSENTS },
    createdAt: { type: "integer" },
    updatedAt: { type: "integer" },
  },
} as const;

const unknownResource = { description: "unknown_resource", schema: v3Error } as const;
const wrongValues = { description: "wrong_values", schema: v3Error } as const;

/** Shared by every resources call: v3, system mode, the clients' permissions (resources admit clients). */
const resourcesCall = { version: "v3", auth: "bearer", tags: ["clients"] } as const;
const reading = { system: ["svc_api_sys_clients"] } as const;
const changing = { system: ["svc_api_sys_clients_chg"] } as const;

const createRoute = (resources: ResourceUseCases) =>
  route({
    id: "resources.create",
    method: "POST",
    path: "/svc/admin/api/v3/resources",
    ...resourcesCall,
    permissions: changing,
    summary: "Register a protected resource (RFC 8707, 9728)",
    description:
      "Once per resource server: the clients it admits ask for its tokens with `resource`, and the tokens carry its URI as `aud` and its own scopes.",
    request: { body: { contentType: "json", schema: newResourceBody, required: true } },
    responses: {
      201: { description: "Registered", schema: resourceView },
      400: wrongValues,
      401: badAccessToken,
      409: { description: "resource_exists", schema: v3Error },
    },
    handler: async (call) => jsonResult(201, await resources.create(call.body, adminChangeEvent(call))),
  });

const listRoute = (resources: ResourceUseCases) =>
  route({
    id: "resources.list",
    method: "GET",
    path: "/svc/admin/api/v3/resources",
    ...resourcesCall,
    permissions: reading,
    summary: "List the protected resources",
    responses: {
      200: {
        description: "Every registered resource",
        schema: {
          type: "object",
          required: ["resources"],
          properties: { resources: { type: "array", items: resourceView } },
        },
      },
      401: badAccessToken,
    },
    handler: async () => jsonResult(200, await resources.list()),
  });

const getRoute = (resources: ResourceUseCases) =>
  route({
    id: "resources.get",
    method: "GET",
    path: "/svc/admin/api/v3/resources/{resourceId}",
    ...resourcesCall,
    permissions: reading,
    summary: "Read a protected resource",
    request: { params: resourceIdParam },
    responses: {
      200: { description: "The resource", schema: resourceView },
      400: wrongValues,
      401: badAccessToken,
      404: unknownResource,
    },
    handler: async (call) => jsonResult(200, await resources.read(call.params.resourceId)),
  });

const replaceRoute = (resources: ResourceUseCases) =>
  route({
    id: "resources.replace",
    method: "PUT",
    path: "/svc/admin/api/v3/resources/{resourceId}",
    ...resourcesCall,
    permissions: changing,
    summary: "Replace a protected resource's name, scopes and consent rule",
    description: "Applies to the next authorization and token request; tokens already issued keep what they carry.",
    request: { params: resourceIdParam, body: { contentType: "json", schema: resourceChangeBody, required: true } },
    responses: {
      200: { description: "The resource as stored", schema: resourceView },
      400: wrongValues,
      401: badAccessToken,
      404: unknownResource,
    },
    handler: async (call) =>
      jsonResult(200, await resources.replace(call.params.resourceId, call.body, adminChangeEvent(call))),
  });

const deleteRoute = (resources: ResourceUseCases) =>
  route({
    id: "resources.delete",
    method: "DELETE",
    path: "/svc/admin/api/v3/resources/{resourceId}",
    ...resourcesCall,
    permissions: changing,
    summary: "Delete a protected resource",
    description:
      "Clients that list its URI in their resources still get tokens for that audience, with their own permissions as before; no other client can ask for it.",
    request: { params: resourceIdParam },
    responses: { 204: { description: "Deleted" }, 400: wrongValues, 401: badAccessToken, 404: unknownResource },
    handler: async (call) => {
      await resources.remove(call.params.resourceId, adminChangeEvent(call));
      return jsonResult(204, undefined);
    },
  });

export const resourcesRoutes = (resources: ResourceUseCases) =>
  group("clients", [
    createRoute(resources),
    listRoute(resources),
    getRoute(resources),
    replaceRoute(resources),
    deleteRoute(resources),
  ]);
