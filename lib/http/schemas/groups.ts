import { SUB_PATTERN } from "../../domain/accounts/new-account";
import {
  GROUP_ID_PATTERN,
  MAX_ATTRIBUTE_LENGTH,
  MAX_ATTRIBUTES,
  MAX_MEMBERS_PER_CALL,
  PROFILE_PATTERN,
} from "../../domain/groups/group";
import type { JsonSchema } from "../route";
import { STORABLE_NUMBER_BOUNDS } from "./common";

/** Schemas of the group calls (SPEC 2.3, 4.8). */

const profile: JsonSchema = { type: "string", pattern: PROFILE_PATTERN, description: "the group profile" };
const expand: JsonSchema = { enum: ["true", "false"] };

export const groupIdParam: JsonSchema = {
  type: "object",
  required: ["groupId"],
  properties: { groupId: { type: "string", pattern: GROUP_ID_PATTERN, description: "Group id" } },
};

export const profileQuery: JsonSchema = {
  type: "object",
  required: ["profile"],
  properties: { profile },
};

export const profileExpandQuery: JsonSchema = {
  type: "object",
  required: ["profile"],
  properties: { profile, expand: { ...expand, description: "true: every attribute of the profile" } },
};

export const groupListQuery: JsonSchema = {
  type: "object",
  required: ["profile"],
  properties: {
    profile,
    rql: {
      type: "string",
      maxLength: 4000,
      description: "RQL filter: and, or, eq over id, name and attributes; limit(count[,offset])",
    },
    expand: { ...expand, description: "true: attributes; false or absent: only ids" },
  },
};

export const membersQuery: JsonSchema = {
  type: "object",
  required: ["profile"],
  properties: { profile, expand: { ...expand, description: "true: add family_name, middle_name, given_name" } },
};

const attributeValue: JsonSchema = {
  type: ["string", "number", "boolean"],
  maxLength: MAX_ATTRIBUTE_LENGTH,
  ...STORABLE_NUMBER_BOUNDS,
};
const groupName: JsonSchema = { type: "string", minLength: 1, maxLength: 256, pattern: "^[^\\u0000-\\u001f\\u007f]*$" };
/** The reserved fields plus the attributes. */
const maxFields = MAX_ATTRIBUTES + 4;

export const newGroupBody: JsonSchema = {
  type: "object",
  required: ["profile", "id"],
  maxProperties: maxFields,
  properties: {
    profile,
    id: { type: "string", pattern: GROUP_ID_PATTERN },
    name: groupName,
    instanceId: { description: "read only: ignored" },
  },
  additionalProperties: { ...attributeValue, description: "a profile attribute" },
};

export const groupChangeBody: JsonSchema = {
  type: "object",
  required: ["profile"],
  maxProperties: maxFields,
  properties: {
    profile: { ...profile, description: "must equal the profile query parameter" },
    id: { type: "string", description: "optional; must equal the id in the path" },
    name: { anyOf: [groupName, { type: "null" }], description: "null removes it" },
    instanceId: { description: "read only: ignored" },
  },
  additionalProperties: { anyOf: [attributeValue, { type: "null" }], description: "an attribute; null removes it" },
};

export const groupView: JsonSchema = {
  type: "object",
  required: ["id", "profile", "instanceId"],
  properties: {
    id: { type: "string" },
    profile: { type: "string" },
    name: { type: "string" },
    instanceId: { type: "string" },
  },
  additionalProperties: { type: ["string", "number", "boolean"] },
};

export const groupList: JsonSchema = {
  type: "array",
  items: {
    type: "object",
    required: ["id", "instanceId"],
    additionalProperties: { type: ["string", "number", "boolean"] },
  },
};

export const memberList: JsonSchema = {
  type: "array",
  items: {
    type: "object",
    required: ["subjectId"],
    properties: {
      subjectId: { type: "string" },
      family_name: { type: "string" },
      middle_name: { type: "string" },
      given_name: { type: "string" },
    },
  },
};

export const membersBody: JsonSchema = {
  type: "array",
  minItems: 1,
  maxItems: MAX_MEMBERS_PER_CALL,
  description: `at most ${MAX_MEMBERS_PER_CALL} accounts per call (one transaction)`,
  items: {
    type: "object",
    additionalProperties: false,
    required: ["subjectId"],
    properties: { subjectId: { type: "string", pattern: SUB_PATTERN } },
  },
};

export const memberResults: JsonSchema = {
  type: "array",
  items: {
    type: "object",
    required: ["instanceId", "storeId", "subjectId"],
    properties: {
      instanceId: { type: "string", description: "the account's meta.instanceId" },
      storeId: { type: "string", description: "the user directory: always svc" },
      subjectId: { type: "string" },
    },
  },
};
