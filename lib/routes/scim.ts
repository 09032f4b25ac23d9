import { SUB_PATTERN } from "../domain/accounts/new-account";
import { problems } from "../domain/errors";
import { listOf, resourceTypes, schemas, serviceProviderConfig } from "../domain/scim/discovery";
import type { ScimUserUseCases } from "../domain/scim/users";
import { scimResult } from "../http/error-body";
import { type ApiCall, group, route } from "../http/route";

/** SCIM 2.0 (RFC 7643, 7644) for an organization's identity provider (docs/scim.md). */

export interface ScimRouteUseCases {
  users: ScimUserUseCases;
  /** `<issuer>/scim/v2`. */
  baseUrl: () => string;
}

const scimError = {
  type: "object",
  required: ["schemas", "status", "detail"],
  properties: {
    schemas: { type: "array", items: { type: "string" } },
    status: { type: "string" },
    scimType: { type: "string" },
    detail: { type: "string" },
  },
} as const;
const resource = { type: "object", description: "a SCIM resource (RFC 7643)" } as const;
const listResponse = {
  type: "object",
  required: ["schemas", "totalResults", "Resources"],
  properties: {
    schemas: { type: "array", items: { type: "string" } },
    totalResults: { type: "integer" },
    startIndex: { type: "integer" },
    itemsPerPage: { type: "integer" },
    Resources: { type: "array", items: resource },
  },
} as const;

const unauthorized = {
  description: "the organization's SCIM token is missing or not live",
  schema: scimError,
} as const;
const invalid = {
  description: "invalidValue, invalidFilter, invalidPath, noTarget, mutability",
  schema: scimError,
} as const;
const missing = { description: "no provisioned user has this id", schema: scimError } as const;

const scimCall = { version: "scim", auth: "scim-bearer", tags: ["scim"] } as const;

const idParams = {
  type: "object",
  required: ["id"],
  properties: { id: { type: "string", pattern: SUB_PATTERN, description: "the user's id (the account's sub)" } },
} as const;

const attributeList = { type: "string", maxLength: 1024, pattern: "^[A-Za-z0-9_$:.,\\s-]*$" } as const;
const projection = { attributes: attributeList, excludedAttributes: attributeList } as const;

const listQuery = {
  type: "object",
  additionalProperties: false,
  properties: {
    filter: { type: "string", minLength: 1, maxLength: 4096, description: "RFC 7644 3.4.2.2" },
    startIndex: { type: "string", pattern: "^[0-9]{1,9}$", description: "1-based" },
    count: { type: "string", pattern: "^[0-9]{1,4}$", description: "at most 200" },
    ...projection,
  },
} as const;
const getQuery = { type: "object", additionalProperties: false, properties: projection } as const;

const multiValued = {
  type: "array",
  maxItems: 20,
  items: {
    type: "object",
    properties: {
      value: { type: "string", maxLength: 1024 },
      type: { type: "string", maxLength: 64 },
      primary: { type: "boolean" },
      display: { type: "string", maxLength: 1024 },
    },
  },
} as const;

const userBody = {
  type: "object",
  required: ["userName"],
  properties: {
    schemas: { type: "array", maxItems: 10, items: { type: "string", maxLength: 256 } },
    userName: { type: "string", minLength: 1, maxLength: 256 },
    externalId: { type: "string", maxLength: 256 },
    active: { type: "boolean" },
    displayName: { type: "string", maxLength: 256 },
    name: {
      type: "object",
      properties: {
        formatted: { type: "string", maxLength: 512 },
        givenName: { type: "string", maxLength: 256 },
        familyName: { type: "string", maxLength: 256 },
        middleName: { type: "string", maxLength: 256 },
      },
    },
    emails: multiValued,
    phoneNumbers: multiValued,
  },
} as const;

const patchBody = {
  type: "object",
  required: ["Operations"],
  properties: {
    schemas: { type: "array", maxItems: 10, items: { type: "string", maxLength: 256 } },
    Operations: {
      type: "array",
      minItems: 1,
      maxItems: 100,
      items: {
        type: "object",
        required: ["op"],
        properties: { op: { type: "string", maxLength: 16 }, path: { type: "string", maxLength: 1024 } },
      },
    },
  },
} as const;

/** The organization the caller's token stands for, which the SCIM token step found. */
function orgOf(call: Pick<ApiCall, "scimOrg">): string {
  if (!call.scimOrg) throw problems.badAccessToken("invalid_scim_token");
  return call.scimOrg;
}

const withVersion = (view: Record<string, unknown>) => {
  const meta = view.meta as { version: string; location: string };
  return { etag: meta.version, location: meta.location };
};

const discovery =
  (id: string, path: string, answer: (base: string) => unknown, summary: string) => (uses: ScimRouteUseCases) =>
    route({
      id,
      method: "GET",
      path,
      ...scimCall,
      summary,
      responses: { 200: { description: summary, schema: resource }, 401: unauthorized },
      handler: async (call) => {
        orgOf(call);
        return scimResult(200, answer(uses.baseUrl()));
      },
    });

const getConfig = discovery(
  "scim.config",
  "/svc/scim/v2/ServiceProviderConfig",
  serviceProviderConfig,
  "What this SCIM server supports (RFC 7644 4)",
);
const getResourceTypes = discovery(
  "scim.resource-types",
  "/svc/scim/v2/ResourceTypes",
  (base) => listOf(resourceTypes(base)),
  "The resource types served",
);
const getSchemas = discovery(
  "scim.schemas",
  "/svc/scim/v2/Schemas",
  (base) => listOf(schemas(base)),
  "The schemas served",
);

const listUsers = (uses: ScimRouteUseCases) =>
  route({
    id: "scim.users-list",
    method: "GET",
    path: "/svc/scim/v2/Users",
    ...scimCall,
    summary: "The organization's provisioned users, filtered and a page at a time",
    request: { query: listQuery },
    responses: { 200: { description: "ListResponse", schema: listResponse }, 400: invalid, 401: unauthorized },
    handler: async (call) => {
      const { startIndex, count, ...rest } = call.query;
      const query = {
        ...rest,
        ...(startIndex !== undefined && { startIndex: Number(startIndex) }),
        ...(count !== undefined && { count: Number(count) }),
      };
      return scimResult(200, await uses.users.list(orgOf(call), query));
    },
  });

const createUser = (uses: ScimRouteUseCases) =>
  route({
    id: "scim.users-create",
    method: "POST",
    path: "/svc/scim/v2/Users",
    ...scimCall,
    summary: "Provision a user: a new account, a member of the organization",
    request: { body: { contentType: "json", schema: userBody, required: true } },
    responses: {
      201: { description: "The user", schema: resource },
      400: invalid,
      401: unauthorized,
      409: { description: "uniqueness: the userName or the e-mail address is taken", schema: scimError },
    },
    handler: async (call) => {
      const view = await uses.users.create(orgOf(call), call.body);
      return scimResult(201, view, withVersion(view));
    },
  });

const getUser = (uses: ScimRouteUseCases) =>
  route({
    id: "scim.users-get",
    method: "GET",
    path: "/svc/scim/v2/Users/{id}",
    ...scimCall,
    summary: "One provisioned user",
    request: { params: idParams, query: getQuery },
    responses: { 200: { description: "The user", schema: resource }, 401: unauthorized, 404: missing },
    handler: async (call) => {
      const view = await uses.users.get(orgOf(call), call.params.id, call.query);
      return scimResult(200, view, { etag: withVersion(view).etag });
    },
  });

const changeResponses = {
  200: { description: "The user as changed", schema: resource },
  400: invalid,
  401: unauthorized,
  404: missing,
  409: { description: "uniqueness; changed_concurrently", schema: scimError },
  412: { description: "If-Match names another version", schema: scimError },
} as const;

const replaceUser = (uses: ScimRouteUseCases) =>
  route({
    id: "scim.users-replace",
    method: "PUT",
    path: "/svc/scim/v2/Users/{id}",
    ...scimCall,
    summary: "Replace a user's attributes",
    request: { params: idParams, body: { contentType: "json", schema: userBody, required: true } },
    responses: changeResponses,
    handler: async (call) => {
      const view = await uses.users.replace(orgOf(call), call.params.id, call.body, call.headers["if-match"]);
      return scimResult(200, view, { etag: withVersion(view).etag });
    },
  });

const patchUser = (uses: ScimRouteUseCases) =>
  route({
    id: "scim.users-patch",
    method: "PATCH",
    path: "/svc/scim/v2/Users/{id}",
    ...scimCall,
    summary: "Change a user by PATCH operations (active false deprovisions)",
    request: { params: idParams, body: { contentType: "json", schema: patchBody, required: true } },
    responses: changeResponses,
    handler: async (call) => {
      const { id } = call.params;
      const view = await uses.users.patch(orgOf(call), id, call.body.Operations, call.headers["if-match"]);
      return scimResult(200, view, { etag: withVersion(view).etag });
    },
  });

const deleteUser = (uses: ScimRouteUseCases) =>
  route({
    id: "scim.users-delete",
    method: "DELETE",
    path: "/svc/scim/v2/Users/{id}",
    ...scimCall,
    summary: "Deprovision a user: the account is locked, its sessions end, it leaves the organization",
    request: { params: idParams },
    responses: {
      204: { description: "Deprovisioned" },
      401: unauthorized,
      404: missing,
      412: { description: "If-Match names another version", schema: scimError },
    },
    handler: async (call) => {
      await uses.users.remove(orgOf(call), call.params.id, call.headers["if-match"]);
      return scimResult(204, undefined);
    },
  });

export const scimRoutes = (uses: ScimRouteUseCases) =>
  group(
    "scim",
    [getConfig, getResourceTypes, getSchemas, listUsers, createUser, getUser, replaceUser, patchUser, deleteUser].map(
      (r) => r(uses),
    ),
  );
