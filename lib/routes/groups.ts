import { SUB_PATTERN } from "../domain/accounts/new-account";
import {
  GROUP_ID_PATTERN,
  MAX_ATTRIBUTE_LENGTH,
  MAX_ATTRIBUTES,
  MAX_MEMBERS_PER_CALL,
  MAX_MEMBERSHIPS_PER_PAGE,
  MEMBERS_PER_PAGE,
  MEMBERSHIPS_PER_PAGE,
  PROFILE_PATTERN,
} from "../domain/groups/group";
import type { GroupUseCases } from "../domain/groups/groups";
import { jsonResult } from "../http/error-body";
import { group, route } from "../http/route";
import {
  accessDenied,
  badAccessToken,
  FREE_KEY_NAME,
  groupIdParam,
  PRINTABLE_PATTERN,
  queryNumber,
  STORABLE_NUMBER_BOUNDS,
  subjectIdParam,
  v2Error,
  v3Error,
} from "./schemas";

/** Schemas of the group calls (interface §2.3, 4.8). */

const profile = { type: "string", pattern: PROFILE_PATTERN, description: "the group profile" } as const;
const expand = { enum: ["true", "false"] } as const;
/** A page size of 1-1000, as a query string carries it. */
const pageLimit = (description: string) =>
  ({ type: "string", pattern: "^(1000|[1-9][0-9]{0,2})$", description }) as const;

export const profileQuery = {
  type: "object",
  required: ["profile"],
  properties: { profile },
} as const;

export const profileExpandQuery = {
  type: "object",
  required: ["profile"],
  properties: { profile, expand: { ...expand, description: "true: every attribute of the profile" } },
} as const;

export const groupListQuery = {
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
} as const;

export const membersQuery = {
  type: "object",
  required: ["profile"],
  properties: {
    profile,
    expand: { ...expand, description: "true: add family_name, middle_name, given_name" },
    limit: pageLimit(`members per page, 1-${MEMBERS_PER_PAGE} (default ${MEMBERS_PER_PAGE})`),
    after: {
      type: "string",
      pattern: SUB_PATTERN,
      description: "the subjectId the previous page ended with: members after it (the Link header's next page)",
    },
  },
} as const;

export const userGroupsQuery = {
  type: "object",
  properties: {
    profile: { ...profile, description: "only the groups of this profile" },
    expand: {
      ...expand,
      description: "true: each group as GET /svc/api/v2/grps/{id}?expand=true answers it, under `group`",
    },
    limit: pageLimit(
      `groups per page, 1-${MAX_MEMBERSHIPS_PER_PAGE} (default ${MEMBERSHIPS_PER_PAGE}, one BatchGetItem when expanded)`,
    ),
    cursor: {
      type: "string",
      minLength: 1,
      maxLength: 272,
      pattern: "^[A-Za-z0-9_-]+$",
      description: "the `next` of the previous page, with the same profile",
    },
  },
} as const;

const attributeValue = {
  type: ["string", "number", "boolean"],
  maxLength: MAX_ATTRIBUTE_LENGTH,
  ...STORABLE_NUMBER_BOUNDS,
} as const;
const groupName = { type: "string", minLength: 1, maxLength: 256, pattern: PRINTABLE_PATTERN } as const;
/** The reserved fields plus the attributes. */
const maxFields = MAX_ATTRIBUTES + 4;

export const newGroupBody = {
  type: "object",
  required: ["profile", "id"],
  maxProperties: maxFields,
  properties: {
    profile,
    id: { type: "string", pattern: GROUP_ID_PATTERN },
    name: groupName,
    instanceId: { description: "read only: ignored" },
  },
  propertyNames: FREE_KEY_NAME,
  additionalProperties: { ...attributeValue, description: "a profile attribute" },
} as const;

export const groupChangeBody = {
  type: "object",
  required: ["profile"],
  maxProperties: maxFields,
  properties: {
    profile: { ...profile, description: "must equal the profile query parameter" },
    id: { type: "string", description: "optional; must equal the id in the path" },
    name: { anyOf: [groupName, { type: "null" }], description: "null removes it" },
    instanceId: { description: "read only: ignored" },
  },
  propertyNames: FREE_KEY_NAME,
  additionalProperties: { anyOf: [attributeValue, { type: "null" }], description: "an attribute; null removes it" },
} as const;

export const groupView = {
  type: "object",
  required: ["id", "profile", "instanceId"],
  properties: {
    id: { type: "string" },
    profile: { type: "string" },
    name: { type: "string" },
    instanceId: { type: "string" },
  },
  additionalProperties: { type: ["string", "number", "boolean"] },
} as const;

export const groupList = {
  type: "array",
  items: {
    type: "object",
    required: ["id", "instanceId"],
    additionalProperties: { type: ["string", "number", "boolean"] },
  },
} as const;

export const userGroupsPage = {
  type: "object",
  required: ["groups"],
  properties: {
    groups: {
      type: "array",
      description: "in profile, then id order",
      items: {
        type: "object",
        required: ["id", "profile", "addedAt"],
        properties: {
          id: { type: "string" },
          profile: { type: "string" },
          addedAt: { type: "integer", description: "when the account became a member, Unix seconds" },
          group: { ...groupView, description: "with expand=true: the group with every attribute" },
        },
      },
    },
    next: { type: "string", description: "present while more groups may follow: pass it as `cursor`" },
  },
} as const;

export const memberList = {
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
} as const;

export const membersBody = {
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
} as const;

export const memberResults = {
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
} as const;

/** Groups (interface §4.8), v2: system permission svc_groups or the REST password. */

/** Shared by every group call (interface §4.8): v2, system permission svc_groups or the REST password. */
const groupCall = {
  version: "v2",
  auth: "bearer-or-basic",
  permissions: { system: ["svc_groups"] },
  tags: ["groups"],
} as const;
/** Members add and rm: the group in the path and query, the accounts in the body. */
const membersChange = {
  params: groupIdParam,
  query: profileQuery,
  body: { contentType: "json", schema: membersBody, required: true },
} as const;

const getRoute = (groups: GroupUseCases) =>
  route({
    id: "groups.get",
    method: "GET",
    path: "/svc/api/v2/grps/{groupId}",
    ...groupCall,
    summary: "Read a group (interface §4.8)",
    request: { params: groupIdParam, query: profileExpandQuery },
    responses: {
      200: { description: "The group; with expand=true every attribute", schema: groupView },
      400: { description: "validation_error", schema: v2Error },
      401: accessDenied,
      404: { description: "group_not_found", schema: v2Error },
    },
    handler: async (call) =>
      jsonResult(200, await groups.read(call.query.profile, call.params.groupId, call.query.expand === "true")),
  });

const listRoute = (groups: GroupUseCases) =>
  route({
    id: "groups.list",
    method: "GET",
    path: "/svc/api/v2/grps",
    ...groupCall,
    summary: "List the groups of a profile, filtered with RQL (interface §4.8)",
    request: { query: groupListQuery },
    responses: {
      200: { description: "Groups in id order: ids, or with expand=true every attribute", schema: groupList },
      400: { description: "validation_error (a malformed rql)", schema: v2Error },
      401: accessDenied,
    },
    handler: async (call) =>
      jsonResult(200, await groups.list(call.query.profile, call.query.rql, call.query.expand === "true")),
  });

const createRoute = (groups: GroupUseCases) =>
  route({
    id: "groups.create",
    method: "POST",
    path: "/svc/api/v2/grps",
    ...groupCall,
    summary: "Create a group (interface §4.8)",
    description: "profile, id (unique in the profile), name, and the profile's attributes as plain fields.",
    request: { body: { contentType: "json", schema: newGroupBody, required: true } },
    responses: {
      201: { description: "Created", schema: groupView },
      400: { description: "validation_error", schema: v2Error },
      401: accessDenied,
      409: { description: "group_already_exists", schema: v2Error },
    },
    handler: async (call) => jsonResult(201, await groups.create(call.body)),
  });

const changeRoute = (groups: GroupUseCases) =>
  route({
    id: "groups.change",
    method: "POST",
    path: "/svc/api/v2/grps/{groupId}",
    ...groupCall,
    summary: "Change a group (interface §4.8)",
    description: "The body repeats the profile of the query; fields sent replace, null removes, the rest stay.",
    request: {
      params: groupIdParam,
      query: profileQuery,
      body: { contentType: "json", schema: groupChangeBody, required: true },
    },
    responses: {
      200: { description: "The changed group", schema: groupView },
      400: { description: "validation_error", schema: v2Error },
      401: accessDenied,
      404: { description: "group_not_found", schema: v2Error },
    },
    handler: async (call) => jsonResult(200, await groups.change(call.query.profile, call.params.groupId, call.body)),
  });

const deleteRoute = (groups: GroupUseCases) =>
  route({
    id: "groups.delete",
    method: "DELETE",
    path: "/svc/api/v2/grps/{groupId}",
    recentSignIn: true,
    ...groupCall,
    summary: "Delete a group with its members and the rights held on it (interface §4.8)",
    description:
      "The group is gone for every call at once; its members and rights are cleared after. If that is interrupted, repeat the DELETE to finish.",
    request: { params: groupIdParam, query: profileQuery },
    responses: {
      204: { description: "Deleted" },
      400: { description: "validation_error", schema: v2Error },
      401: accessDenied,
      404: { description: "group_not_found", schema: v2Error },
    },
    handler: async (call) => {
      await groups.delete(call.query.profile, call.params.groupId);
      return jsonResult(204, undefined);
    },
  });

const members = (groups: GroupUseCases) =>
  route({
    id: "groups.members",
    method: "GET",
    path: "/svc/api/v2/grps/{groupId}/members",
    ...groupCall,
    summary: "List the members of a group (interface §4.8)",
    request: { params: groupIdParam, query: membersQuery },
    responses: {
      200: {
        description: "Members by subject id; expand=true adds names",
        schema: memberList,
        headers: { link: 'rel="next": the next page, present while more members follow' },
      },
      400: { description: "validation_error", schema: v2Error },
      401: accessDenied,
      404: { description: "group_not_found", schema: v2Error },
    },
    handler: async (call) => {
      const { profile, expand, after } = call.query;
      const limit = queryNumber(call.query.limit) ?? MEMBERS_PER_PAGE;
      const page = await groups.members(profile, call.params.groupId, expand === "true", { limit, after });
      if (page.next === undefined) return jsonResult(200, page.members);
      // The list stays the interface's array; the way on is an RFC 8288 link, as GitHub's.
      const next = new URLSearchParams({ profile, ...(expand && { expand }), limit: String(limit), after: page.next });
      const path = `/svc/api/v2/grps/${encodeURIComponent(call.params.groupId)}/members?${next}`;
      return jsonResult(200, page.members, { link: `<${path}>; rel="next"` });
    },
  });

const membersAdd = (groups: GroupUseCases) =>
  route({
    id: "groups.members-add",
    method: "POST",
    path: "/svc/api/v2/grps/{groupId}/members/add",
    ...groupCall,
    summary: "Add accounts to a group, all or none (interface §4.8)",
    request: membersChange,
    responses: {
      200: { description: "The members added", schema: memberResults },
      400: { description: "validation_error, user_not_found", schema: v2Error },
      401: accessDenied,
      404: { description: "group_not_found", schema: v2Error },
      409: { description: "some_members_already_in_group", schema: v2Error },
    },
    handler: async (call) =>
      jsonResult(200, await groups.addMembers(call.query.profile, call.params.groupId, call.body)),
  });

const membersRm = (groups: GroupUseCases) =>
  route({
    id: "groups.members-rm",
    method: "POST",
    path: "/svc/api/v2/grps/{groupId}/members/rm",
    ...groupCall,
    summary: "Remove accounts from a group, all or none (interface §4.8)",
    request: membersChange,
    responses: {
      200: { description: "The members removed", schema: memberResults },
      400: { description: "validation_error, user_not_found", schema: v2Error },
      401: accessDenied,
      404: { description: "group_not_found", schema: v2Error },
      409: { description: "some_members_not_in_group", schema: v2Error },
    },
    handler: async (call) =>
      jsonResult(200, await groups.removeMembers(call.query.profile, call.params.groupId, call.body)),
  });

const ofUser = (groups: GroupUseCases) =>
  route({
    id: "groups.of-user",
    method: "GET",
    path: "/svc/api/v3/users/{subjectId}/groups",
    version: "v3",
    auth: "bearer",
    // The owner sees their groups in the account console's data export already; reading them here is no more.
    permissions: { user: ["svc_api_user"], system: ["svc_groups"] },
    subject: { param: "subjectId", kind: "subjectId" },
    summary: "The groups an account belongs to, a page at a time (docs/interface.md §4.8a)",
    description:
      "One Query of the account's own partition (the mirror of each membership). profile keeps one profile's groups; expand=true adds each group as GET /svc/api/v2/grps/{id}?expand=true answers it, one BatchGetItem per 100 groups, and leaves out a group whose deletion has not finished. A user token reads only its own account's groups.",
    tags: ["groups", "users"],
    request: { params: subjectIdParam, query: userGroupsQuery },
    responses: {
      200: { description: "A page of the account's groups; `next` while more may follow", schema: userGroupsPage },
      400: { description: "input_error (a malformed subject id, limit or cursor)", schema: v3Error },
      401: badAccessToken,
      404: { description: "unknown_user", schema: v3Error },
    },
    handler: async (call) => {
      const { profile, expand, limit, cursor } = call.query;
      const page = await groups.membershipsOf(call.subject, {
        profile,
        expand: expand === "true",
        limit: queryNumber(limit),
        cursor,
        accountKnown: call.account?.sub === call.subject,
      });
      return jsonResult(200, page);
    },
  });

export const groupsRoutes = (groups: GroupUseCases) =>
  group(
    "groups",
    [getRoute, listRoute, createRoute, changeRoute, deleteRoute, members, membersAdd, membersRm, ofUser].map((r) =>
      r(groups),
    ),
  );
