import { SUB_PATTERN } from "../domain/accounts/new-account";
import { CLIENT_ID_PATTERN } from "../domain/clients/client";
import { PROFILE_PATTERN } from "../domain/groups/group";
import { RIGHT_NAME_PATTERN } from "../domain/rights/catalogue";
import { partyKey } from "../domain/rights/parties";
import type { RightUseCases } from "../domain/rights/rights";
import { jsonResult } from "../http/error-body";
import { userCallEvent } from "../http/middleware/security-event";
import { group, route } from "../http/route";
import {
  accessDenied,
  badAccessToken,
  groupIdParam,
  PRINTABLE_PATTERN,
  subjectIdParam,
  v2Error,
  v3Error,
} from "./schemas";

/** Schemas of the rights calls (interface §4.3) and the rights catalogue (interface §4.16). */

const rightName = { type: "string", pattern: RIGHT_NAME_PATTERN, description: "a right of the catalogue" } as const;

/** Tags say why a right was given: printable text. */
const tag = { type: "string", minLength: 1, maxLength: 256, pattern: PRINTABLE_PATTERN } as const;

const rightList = { type: "array", minItems: 1, maxItems: 32, items: rightName } as const;
const tagList = { type: "array", minItems: 1, maxItems: 32, items: tag } as const;

export const appIdParam = {
  type: "object",
  required: ["appId"],
  properties: { appId: { type: "string", pattern: CLIENT_ID_PATTERN.source, description: "Application (client) id" } },
} as const;

export const objectExtQuery = {
  type: "object",
  required: ["objectExt"],
  properties: { objectExt: { type: "string", pattern: PROFILE_PATTERN, description: "The group's profile" } },
} as const;

export const rightNameParam = {
  type: "object",
  required: ["name"],
  properties: { name: { ...rightName, description: "Right name" } },
} as const;

const rightsBody = (tagsRequired: boolean) =>
  ({
    type: "object",
    additionalProperties: false,
    required: tagsRequired ? ["subject", "object", "rights", "tags"] : ["subject", "object", "rights"],
    properties: {
      subject: {
        type: "string",
        minLength: 1,
        maxLength: 128,
        description: "user id, or application id with subjectType its",
      },
      subjectType: { enum: ["its"], description: "only when the subject is an application" },
      object: { type: "string", minLength: 1, maxLength: 128, description: "user id, group id or application id" },
      objectType: { enum: ["grps", "its"], description: "grps: a group (give objectExt); its: an application" },
      objectExt: { type: "string", pattern: PROFILE_PATTERN, description: "the group's profile (objectType grps)" },
      rights: rightList,
      tags: tagsRequired
        ? tagList
        : { ...tagList, description: "tags to revoke; without tags the rights are revoked whole" },
    },
  }) as const;

export const assignRightsBody = rightsBody(true);
export const revokeRightsBody = rightsBody(false);

/** interface §4.3 rights of a subject: object key -> right -> tags. */
export const rightsOfResponse = {
  type: "object",
  description: "object key (user id, its|<app_id>, grps|<group_id>|<profile>) -> right name -> tags",
  additionalProperties: { type: "object", additionalProperties: { type: "array", items: { type: "string" } } },
} as const;

/** interface §4.3 rights on an object: subject key -> right names. */
export const rightsOnResponse = {
  type: "object",
  description: "subject key (user id or its|<app_id>) -> right names",
  additionalProperties: { type: "array", items: { type: "string" } },
} as const;

const changeEntry = {
  type: "object",
  additionalProperties: false,
  required: ["subject", "object", "rights", "tags"],
  properties: {
    subject: { type: "string", pattern: SUB_PATTERN, description: "the lead account, which holds the right" },
    object: {
      type: "string",
      pattern: SUB_PATTERN,
      description: "the subordinate account (to grant with a user token: the token's owner)",
    },
    rights: rightList,
    tags: tagList,
  },
} as const;

export const rightsChangeBody = {
  type: "object",
  additionalProperties: false,
  required: ["update", "delete"],
  properties: {
    update: { type: "array", maxItems: 32, items: changeEntry, description: "rights to assign ([] for none)" },
    delete: { type: "array", maxItems: 32, items: changeEntry, description: "tags to revoke ([] for none)" },
  },
} as const;

export const rightsChangeResponse = {
  type: "object",
  required: ["rights"],
  properties: {
    rights: {
      type: "array",
      description: "every right the call touched with its tags afterwards; tags [] means the right is gone",
      items: {
        type: "object",
        required: ["subject", "object", "right", "tags"],
        properties: {
          subject: { type: "string" },
          object: { type: "string" },
          right: { type: "string" },
          tags: { type: "array", items: { type: "string" } },
        },
      },
    },
  },
} as const;

const partyKinds = <const K extends readonly string[]>(kinds: K) =>
  ({
    type: "array",
    minItems: 1,
    uniqueItems: true,
    items: { enum: kinds },
  }) as const;

export const newRightBody = {
  type: "object",
  additionalProperties: false,
  required: ["name", "subjectTypes", "objectTypes"],
  properties: {
    name: rightName,
    description: { type: "string", maxLength: 1024 },
    subjectTypes: { ...partyKinds(["user", "its"]), description: "who may hold it: user, its (application)" },
    objectTypes: { ...partyKinds(["user", "grps", "its"]), description: "on what: user, grps (group), its" },
  },
} as const;

export const rightDefinition = {
  type: "object",
  required: ["name", "description", "subjectTypes", "objectTypes", "builtin"],
  properties: {
    name: { type: "string" },
    description: { type: "string" },
    subjectTypes: { type: "array", items: { enum: ["user", "its"] } },
    objectTypes: { type: "array", items: { enum: ["user", "grps", "its"] } },
    builtin: { type: "boolean", description: "built-in rights cannot be deleted" },
  },
} as const;

/** Shared by the v3 rights calls (interface §4.3) and the catalogue (interface §4.16). */
const rightsCall = {
  version: "v3",
  auth: "bearer",
  permissions: { system: ["svc_rights_full_access"] },
} as const;

const ofUser = (rights: RightUseCases) =>
  route({
    id: "rights.of-user",
    method: "GET",
    path: "/svc/api/v3/rights/of/{subjectId}",
    ...rightsCall,
    permissions: { user: ["svc_user_rights"], system: ["svc_rights_full_access"] },
    subject: { param: "subjectId", kind: "subjectId" },
    summary: "Rights a user holds (interface §4.3)",
    description:
      "Object key (user id, its|<app_id>, grps|<group_id>|<profile>) -> right -> tags. A user token reads its own.",
    tags: ["rights"],
    request: { params: subjectIdParam },
    responses: {
      200: { description: "Rights by object", schema: rightsOfResponse },
      400: { description: "process_error unknown_user; input_error", schema: v3Error },
      401: badAccessToken,
    },
    handler: async (call) => jsonResult(200, await rights.rightsOf({ kind: "user", id: call.params.subjectId })),
  });

const ofApp = (rights: RightUseCases) =>
  route({
    id: "rights.of-app",
    method: "GET",
    path: "/svc/api/v3/rights/of/its/{appId}",
    ...rightsCall,
    summary: "Rights an application holds (interface §4.3)",
    tags: ["rights"],
    request: { params: appIdParam },
    responses: {
      200: { description: "Rights by object", schema: rightsOfResponse },
      400: { description: "process_error unknown_rp; input_error", schema: v3Error },
      401: badAccessToken,
    },
    handler: async (call) => jsonResult(200, await rights.rightsOf({ kind: "its", id: call.params.appId })),
  });

const onUser = (rights: RightUseCases) =>
  route({
    id: "rights.on-user",
    method: "GET",
    path: "/svc/api/v3/rights/on/{subjectId}",
    ...rightsCall,
    summary: "Rights held on a user (interface §4.3)",
    description: "Subject key (user id or its|<app_id>) -> right names.",
    tags: ["rights"],
    request: { params: subjectIdParam },
    responses: {
      200: { description: "Rights by subject", schema: rightsOnResponse },
      400: { description: "process_error unknown_user; input_error", schema: v3Error },
      401: badAccessToken,
    },
    handler: async (call) => jsonResult(200, await rights.rightsOn({ kind: "user", id: call.params.subjectId })),
  });

const onGroup = (rights: RightUseCases) =>
  route({
    id: "rights.on-group",
    method: "GET",
    path: "/svc/api/v3/rights/on/grps/{groupId}",
    ...rightsCall,
    summary: "Rights held on a group (interface §4.3); objectExt is the group's profile",
    tags: ["rights"],
    request: { params: groupIdParam, query: objectExtQuery },
    responses: {
      200: { description: "Rights by subject", schema: rightsOnResponse },
      400: { description: "process_error unknown_group; input_error", schema: v3Error },
      401: badAccessToken,
    },
    handler: async (call) =>
      jsonResult(200, await rights.rightsOn({ kind: "grps", id: call.params.groupId, profile: call.query.objectExt })),
  });

const onApp = (rights: RightUseCases) =>
  route({
    id: "rights.on-app",
    method: "GET",
    path: "/svc/api/v3/rights/on/its/{appId}",
    ...rightsCall,
    summary: "Rights held on an application (interface §4.3)",
    tags: ["rights"],
    request: { params: appIdParam },
    responses: {
      200: { description: "Rights by subject", schema: rightsOnResponse },
      400: { description: "process_error unknown_rp; input_error", schema: v3Error },
      401: badAccessToken,
    },
    handler: async (call) => jsonResult(200, await rights.rightsOn({ kind: "its", id: call.params.appId })),
  });

const assign = (rights: RightUseCases) =>
  route({
    id: "rights.assign",
    method: "PUT",
    path: "/svc/api/v3/rights",
    ...rightsCall,
    summary: "Assign rights with tags (interface §4.3)",
    description:
      "Adds the tags to each right of the subject on the object, in one transaction. subjectType its: an application; objectType grps (with objectExt, the profile) or its. Every right must be in the catalogue and apply to these kinds of subject and object.",
    tags: ["rights"],
    request: { body: { contentType: "json", schema: assignRightsBody, required: true } },
    responses: {
      204: { description: "Assigned" },
      400: {
        description: "process_error unknown_right, unknown_user, unknown_group, unknown_rp; input_error",
        schema: v3Error,
      },
      401: { description: "bad_access_token (expired_access_token)", schema: v3Error },
    },
    handler: async (call) => {
      await rights.assign(call.body);
      return jsonResult(204, undefined);
    },
  });

const revoke = (rights: RightUseCases) =>
  route({
    id: "rights.revoke",
    method: "DELETE",
    path: "/svc/api/v3/rights",
    ...rightsCall,
    summary: "Revoke tags of rights (interface §4.3)",
    description:
      "Removes the tags from each right; a right stays while any tag remains. Without tags the rights are revoked whole. Revoking what is not held succeeds.",
    tags: ["rights"],
    request: { body: { contentType: "json", schema: revokeRightsBody, required: true } },
    responses: {
      204: { description: "Revoked" },
      400: {
        description: "process_error unknown_right, unknown_user, unknown_group, unknown_rp; input_error",
        schema: v3Error,
      },
      401: { description: "bad_access_token (expired_access_token)", schema: v3Error },
      409: { description: "changed_concurrently: try again", schema: v3Error },
    },
    handler: async (call) => {
      await rights.revoke(call.body);
      return jsonResult(204, undefined);
    },
  });

const changeRoute = (rights: RightUseCases) =>
  route({
    id: "rights.change",
    method: "POST",
    path: "/svc/api/v2/users/rights/change",
    version: "v2",
    auth: "bearer-or-basic",
    permissions: { user: ["svc_user_rights"], system: ["svc_rm_rights"] },
    event: { type: "rights.change", inTransaction: true },
    summary: "Assign and revoke rights of a lead account over others (interface §4.3)",
    description:
      "update and delete are applied together in one transaction, delete first. A user token (svc_user_rights) grants rights over its own account (it is the object) and revokes rights it holds or gave over itself; it never grants itself a right over another account. A system token (svc_rm_rights) or the REST password may only revoke, for any subject. The answer lists each right touched with its tags afterwards.",
    tags: ["rights"],
    request: { body: { contentType: "json", schema: rightsChangeBody, required: true } },
    responses: {
      200: { description: "Applied", schema: rightsChangeResponse },
      400: { description: "validation_error", schema: v2Error },
      401: accessDenied,
      409: { description: "changed_concurrently: try again", schema: v2Error },
    },
    handler: async (call) => {
      const caller = call.principal ?? { mode: "system" as const };
      const outcome = await rights.change(call.body, caller, userCallEvent(call));
      return jsonResult(200, {
        rights: outcome.map((grant) => ({
          subject: partyKey(grant.subject),
          object: partyKey(grant.object),
          right: grant.right,
          tags: grant.tags,
        })),
      });
    },
  });

const catalogueList = (rights: RightUseCases) =>
  route({
    id: "rights.catalogue-list",
    method: "GET",
    path: "/svc/admin/api/v3/rights",
    ...rightsCall,
    permissions: { user: ["svc_user_rights"], system: ["svc_rights_full_access"] },
    summary: "List the rights catalogue (interface §4.16)",
    tags: ["rights catalogue"],
    responses: {
      200: {
        description: "Built-in rights, then the others by name",
        schema: { type: "array", items: rightDefinition },
      },
      401: badAccessToken,
    },
    handler: async () => jsonResult(200, await rights.listDefinitions()),
  });

const catalogueGet = (rights: RightUseCases) =>
  route({
    id: "rights.catalogue-get",
    method: "GET",
    path: "/svc/admin/api/v3/rights/{name}",
    ...rightsCall,
    permissions: { user: ["svc_user_rights"], system: ["svc_rights_full_access"] },
    summary: "Read one right definition (interface §4.16)",
    tags: ["rights catalogue"],
    request: { params: rightNameParam },
    responses: {
      200: { description: "The definition", schema: rightDefinition },
      400: { description: "input_error", schema: v3Error },
      401: badAccessToken,
      404: { description: "unknown_right", schema: v3Error },
    },
    handler: async (call) => jsonResult(200, await rights.readDefinition(call.params.name)),
  });

const catalogueCreate = (rights: RightUseCases) =>
  route({
    id: "rights.catalogue-create",
    method: "POST",
    path: "/svc/admin/api/v3/rights",
    ...rightsCall,
    summary: "Add a right to the catalogue (interface §4.16)",
    description: "name, description, and the kinds of subject (user, its) and object (user, grps, its) it applies to.",
    tags: ["rights catalogue"],
    request: { body: { contentType: "json", schema: newRightBody, required: true } },
    responses: {
      201: { description: "Created", schema: rightDefinition },
      400: { description: "input_error", schema: v3Error },
      401: badAccessToken,
      409: { description: "right_exists", schema: v3Error },
    },
    handler: async (call) => jsonResult(201, await rights.createDefinition(call.body)),
  });

const catalogueDelete = (rights: RightUseCases) =>
  route({
    id: "rights.catalogue-delete",
    method: "DELETE",
    path: "/svc/admin/api/v3/rights/{name}",
    ...rightsCall,
    summary: "Remove a right from the catalogue (interface §4.16)",
    description: "It can no longer be assigned; grants made earlier stay listed and can be revoked.",
    tags: ["rights catalogue"],
    request: { params: rightNameParam },
    responses: {
      204: { description: "Removed" },
      400: { description: "builtin_right; input_error", schema: v3Error },
      401: badAccessToken,
      404: { description: "unknown_right", schema: v3Error },
    },
    handler: async (call) => {
      await rights.deleteDefinition(call.params.name);
      return jsonResult(204, undefined);
    },
  });

export const rightsRoutes = (rights: RightUseCases) =>
  group(
    "rights",
    [
      ofUser,
      ofApp,
      onUser,
      onGroup,
      onApp,
      assign,
      revoke,
      changeRoute,
      catalogueList,
      catalogueGet,
      catalogueCreate,
      catalogueDelete,
    ].map((r) => r(rights)),
  );
