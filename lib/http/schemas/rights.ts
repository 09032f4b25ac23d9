import { SUB_PATTERN } from "../../domain/accounts/new-account";
import { CLIENT_ID_PATTERN } from "../../domain/clients/client";
import { PROFILE_PATTERN } from "../../domain/groups/group";
import { RIGHT_NAME_PATTERN } from "../../domain/rights/catalogue";
import type { JsonSchema } from "../route";

/** Schemas of the rights calls (SPEC 4.3) and the rights catalogue (SPEC 4.16). */

const rightName: JsonSchema = { type: "string", pattern: RIGHT_NAME_PATTERN, description: "a right of the catalogue" };

/** Tags say why a right was given: printable text. */
const tag: JsonSchema = { type: "string", minLength: 1, maxLength: 256, pattern: "^[^\\u0000-\\u001f\\u007f]*$" };

const rightList: JsonSchema = { type: "array", minItems: 1, maxItems: 32, items: rightName };
const tagList: JsonSchema = { type: "array", minItems: 1, maxItems: 32, items: tag };

export const appIdParam: JsonSchema = {
  type: "object",
  required: ["appId"],
  properties: { appId: { type: "string", pattern: CLIENT_ID_PATTERN.source, description: "Application (client) id" } },
};

export const objectExtQuery: JsonSchema = {
  type: "object",
  required: ["objectExt"],
  properties: { objectExt: { type: "string", pattern: PROFILE_PATTERN, description: "The group's profile" } },
};

export const rightNameParam: JsonSchema = {
  type: "object",
  required: ["name"],
  properties: { name: { ...rightName, description: "Right name" } },
};

const rightsBody = (tagsRequired: boolean): JsonSchema => ({
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
});

export const assignRightsBody = rightsBody(true);
export const revokeRightsBody = rightsBody(false);

/** SPEC 4.3 rights of a subject: object key -> right -> tags. */
export const rightsOfResponse: JsonSchema = {
  type: "object",
  description: "object key (user id, its|<app_id>, grps|<group_id>|<profile>) -> right name -> tags",
  additionalProperties: { type: "object", additionalProperties: { type: "array", items: { type: "string" } } },
};

/** SPEC 4.3 rights on an object: subject key -> right names. */
export const rightsOnResponse: JsonSchema = {
  type: "object",
  description: "subject key (user id or its|<app_id>) -> right names",
  additionalProperties: { type: "array", items: { type: "string" } },
};

const changeEntry: JsonSchema = {
  type: "object",
  additionalProperties: false,
  required: ["subject", "object", "rights", "tags"],
  properties: {
    subject: { type: "string", pattern: SUB_PATTERN, description: "the lead account (with a user token: its owner)" },
    object: { type: "string", pattern: SUB_PATTERN, description: "the subordinate account" },
    rights: rightList,
    tags: tagList,
  },
};

export const rightsChangeBody: JsonSchema = {
  type: "object",
  additionalProperties: false,
  required: ["update", "delete"],
  properties: {
    update: { type: "array", maxItems: 32, items: changeEntry, description: "rights to assign ([] for none)" },
    delete: { type: "array", maxItems: 32, items: changeEntry, description: "tags to revoke ([] for none)" },
  },
};

export const rightsChangeResponse: JsonSchema = {
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
};

const partyKinds = (kinds: string[]): JsonSchema => ({
  type: "array",
  minItems: 1,
  uniqueItems: true,
  items: { enum: kinds },
});

export const newRightBody: JsonSchema = {
  type: "object",
  additionalProperties: false,
  required: ["name", "subjectTypes", "objectTypes"],
  properties: {
    name: rightName,
    description: { type: "string", maxLength: 1024 },
    subjectTypes: { ...partyKinds(["user", "its"]), description: "who may hold it: user, its (application)" },
    objectTypes: { ...partyKinds(["user", "grps", "its"]), description: "on what: user, grps (group), its" },
  },
};

export const rightDefinition: JsonSchema = {
  type: "object",
  required: ["name", "description", "subjectTypes", "objectTypes", "builtin"],
  properties: {
    name: { type: "string" },
    description: { type: "string" },
    subjectTypes: { type: "array", items: { enum: ["user", "its"] } },
    objectTypes: { type: "array", items: { enum: ["user", "grps", "its"] } },
    builtin: { type: "boolean", description: "built-in rights cannot be deleted" },
  },
};
