import { SUB_PATTERN } from "../domain/accounts/new-account";
import { problems } from "../domain/errors";
import { listOf, resourceTypes, schemas, serviceProviderConfig } from "../domain/scim/discovery";
import { MAX_MEMBERS } from "../domain/scim/group-resource";
import type { ScimGroupUseCases } from "../domain/scim/groups";
import type { PatchOperation } from "../domain/scim/patch";
import type { ListQuery, Projection, ScimAnswer, ScimCaller } from "../domain/scim/resources";
import type { ScimUserUseCases } from "../domain/scim/users";
import { scimResult } from "../http/error-body";
import { type ApiCall, group, route, type Schema } from "../http/route";

/** SCIM 2.0 (RFC 7643, 7644) for an organization's identity provider (docs/scim.md). */

export interface ScimRouteUseCases {
  users: ScimUserUseCases;
  groups: ScimGroupUseCases;
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

/** The caller as the use cases see it: its organization, address and User-Agent. */
const callerOf = (call: Pick<ApiCall, "scimOrg" | "sourceIp" | "userAgent">): ScimCaller => ({
  orgId: orgOf(call),
  ...(call.sourceIp && { ip: call.sourceIp }),
  ...(call.userAgent && { ua: call.userAgent }),
});

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

/** What the routes of one resource type call: the users' and the groups' use cases alike. */
interface ResourceUseCases {
  create(caller: ScimCaller, body: Record<string, unknown>): Promise<ScimAnswer>;
  get(caller: ScimCaller, id: string, wanted: Projection): Promise<ScimAnswer>;
  list(caller: ScimCaller, query: ListQuery): Promise<unknown>;
  replace(caller: ScimCaller, id: string, body: Record<string, unknown>, ifMatch?: string): Promise<ScimAnswer>;
  patch(caller: ScimCaller, id: string, operations: PatchOperation[], ifMatch?: string): Promise<ScimAnswer>;
  remove(caller: ScimCaller, id: string, ifMatch?: string): Promise<void>;
}

interface ResourceSpec {
  /** users or groups: route ids scim.<kind>-list ... */
  kind: "users" | "groups";
  /** /svc/scim/v2/Users or /svc/scim/v2/Groups */
  path: string;
  noun: string;
  /** Loosely typed on purpose: the use cases check what they keep (lib/domain/scim/resources.ts). */
  body: Schema;
  created: string;
  removed: string;
  uses: (all: ScimRouteUseCases) => ResourceUseCases;
}

const changeResponses = (noun: string) =>
  ({
    200: { description: `The ${noun} as changed`, schema: resource },
    400: invalid,
    401: unauthorized,
    404: { description: `no provisioned ${noun} has this id`, schema: scimError },
    409: { description: "uniqueness; changed_concurrently", schema: scimError },
    412: { description: "If-Match names another version", schema: scimError },
  }) as const;

/** The six routes of one resource type (RFC 7644 3.3-3.6): list, create, get, replace, patch, delete. */
function resourceRoutes(spec: ResourceSpec) {
  const missing = { description: `no provisioned ${spec.noun} has this id`, schema: scimError } as const;
  const item = `${spec.path}/{id}`;
  return [
    (all: ScimRouteUseCases) =>
      route({
        id: `scim.${spec.kind}-list`,
        method: "GET",
        path: spec.path,
        ...scimCall,
        summary: `The organization's provisioned ${spec.kind}, filtered and a page at a time`,
        request: { query: listQuery },
        responses: { 200: { description: "ListResponse", schema: listResponse }, 400: invalid, 401: unauthorized },
        handler: async (call) => {
          const { startIndex, count, ...rest } = call.query;
          const query = {
            ...rest,
            ...(startIndex !== undefined && { startIndex: Number(startIndex) }),
            ...(count !== undefined && { count: Number(count) }),
          };
          return scimResult(200, await spec.uses(all).list(callerOf(call), query));
        },
      }),
    (all: ScimRouteUseCases) =>
      route({
        id: `scim.${spec.kind}-create`,
        method: "POST",
        path: spec.path,
        ...scimCall,
        summary: spec.created,
        request: { body: { contentType: "json", schema: spec.body, required: true } },
        responses: {
          201: { description: `The ${spec.noun}`, schema: resource },
          400: invalid,
          401: unauthorized,
          409: { description: "uniqueness: the name (or a user's e-mail address) is taken", schema: scimError },
        },
        handler: async (call) => {
          const { resource, etag, location } = await spec.uses(all).create(callerOf(call), call.body);
          return scimResult(201, resource, { etag, location });
        },
      }),
    (all: ScimRouteUseCases) =>
      route({
        id: `scim.${spec.kind}-get`,
        method: "GET",
        path: item,
        ...scimCall,
        summary: `One provisioned ${spec.noun}`,
        request: { params: idParams, query: getQuery },
        responses: { 200: { description: `The ${spec.noun}`, schema: resource }, 401: unauthorized, 404: missing },
        handler: async (call) => {
          const { resource, etag } = await spec.uses(all).get(callerOf(call), call.params.id, call.query);
          return scimResult(200, resource, { etag });
        },
      }),
    (all: ScimRouteUseCases) =>
      route({
        id: `scim.${spec.kind}-replace`,
        method: "PUT",
        path: item,
        ...scimCall,
        summary: `Replace a ${spec.noun}'s attributes`,
        request: { params: idParams, body: { contentType: "json", schema: spec.body, required: true } },
        responses: changeResponses(spec.noun),
        handler: async (call) => {
          const { id } = call.params;
          const { resource, etag } = await spec
            .uses(all)
            .replace(callerOf(call), id, call.body, call.headers["if-match"]);
          return scimResult(200, resource, { etag });
        },
      }),
    (all: ScimRouteUseCases) =>
      route({
        id: `scim.${spec.kind}-patch`,
        method: "PATCH",
        path: item,
        ...scimCall,
        summary: `Change a ${spec.noun} by PATCH operations`,
        request: { params: idParams, body: { contentType: "json", schema: patchBody, required: true } },
        responses: changeResponses(spec.noun),
        handler: async (call) => {
          const { id } = call.params;
          const answer = await spec.uses(all).patch(callerOf(call), id, call.body.Operations, call.headers["if-match"]);
          return scimResult(200, answer.resource, { etag: answer.etag });
        },
      }),
    (all: ScimRouteUseCases) =>
      route({
        id: `scim.${spec.kind}-delete`,
        method: "DELETE",
        path: item,
        ...scimCall,
        summary: spec.removed,
        request: { params: idParams },
        responses: {
          204: { description: "Deleted" },
          401: unauthorized,
          404: missing,
          412: { description: "If-Match names another version", schema: scimError },
        },
        handler: async (call) => {
          await spec.uses(all).remove(callerOf(call), call.params.id, call.headers["if-match"]);
          return scimResult(204, undefined);
        },
      }),
  ];
}

const groupBody = {
  type: "object",
  required: ["displayName"],
  properties: {
    schemas: { type: "array", maxItems: 10, items: { type: "string", maxLength: 256 } },
    displayName: { type: "string", minLength: 1, maxLength: 256 },
    externalId: { type: "string", maxLength: 256 },
    members: {
      type: "array",
      maxItems: MAX_MEMBERS,
      items: {
        type: "object",
        required: ["value"],
        properties: { value: { type: "string", maxLength: 128 }, display: { type: "string", maxLength: 1024 } },
      },
    },
  },
} as const;

const userRoutes = resourceRoutes({
  kind: "users",
  path: "/svc/scim/v2/Users",
  noun: "user",
  body: userBody,
  created: "Provision a user: a new account, a member of the organization",
  removed: "Deprovision a user: the account is locked, its sessions end, it leaves the organization and its groups",
  uses: (all) => all.users,
});

const groupRoutes = resourceRoutes({
  kind: "groups",
  path: "/svc/scim/v2/Groups",
  noun: "group",
  body: groupBody,
  created: "Provision a group of the organization's provisioned users",
  removed: "Delete a provisioned group (its users stay)",
  uses: (all) => all.groups,
});

export const scimRoutes = (uses: ScimRouteUseCases) =>
  group(
    "scim",
    [getConfig, getResourceTypes, getSchemas, ...userRoutes, ...groupRoutes].map((r) => r(uses)),
  );
