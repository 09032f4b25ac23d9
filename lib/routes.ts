import { type RouteDefinition, routeKey } from "./http/route";
import { instanceIdInPath, oauthError, subjectIdParam, v2Error, v3Error } from "./http/schemas/common";
import {
  groupChangeBody,
  groupIdParam,
  groupList,
  groupListQuery,
  groupView,
  memberList,
  memberResults,
  membersBody,
  membersQuery,
  newGroupBody,
  profileExpandQuery,
  profileQuery,
} from "./http/schemas/groups";
import {
  appIdParam,
  assignRightsBody,
  newRightBody,
  objectExtQuery,
  revokeRightsBody,
  rightDefinition,
  rightNameParam,
  rightsChangeBody,
  rightsChangeResponse,
  rightsOfResponse,
  rightsOnResponse,
} from "./http/schemas/rights";
import { searchQuery, searchResults } from "./http/schemas/search";
import { tokenRequest, tokenResponse } from "./http/schemas/token";
import { accountChange, accountView } from "./http/schemas/users";

/**
 * THE route table (DESIGN 3). The CDK stack, the local gateway, each function's
 * dispatch, request validation and the OpenAPI document are all made from this list.
 *
 * API Gateway (and OpenAPI) refuse two variables of different names at the same level
 * of a path, so every `/users/{x}` route names its variable `subjectId`; routes that
 * address the account by instanceId say so in `subject.kind`.
 */
/** Shared by every group call (SPEC 4.8): v2, system permission svc_groups or the REST password. */
const groupCall: Pick<RouteDefinition, "fn" | "version" | "auth" | "permissions" | "tags"> = {
  fn: "groups",
  version: "v2",
  auth: "bearer-or-basic",
  permissions: { system: ["svc_groups"] },
  tags: ["groups"],
};

/** Shared by the v3 rights calls (SPEC 4.3) and the catalogue (SPEC 4.16). */
const rightsCall: Pick<RouteDefinition, "fn" | "version" | "auth" | "permissions"> = {
  fn: "rights",
  version: "v3",
  auth: "bearer",
  permissions: { system: ["svc_rights_full_access"] },
};

/** Members add and rm: the group in the path and query, the accounts in the body. */
const membersChange: RouteDefinition["request"] = {
  params: groupIdParam,
  query: profileQuery,
  body: { contentType: "json", schema: membersBody, required: true },
};

const badAccessToken = { description: "bad_access_token", schema: v3Error };
const accessDenied = { description: "access_denied", schema: v2Error };

export const routes: readonly RouteDefinition[] = [
  {
    id: "token.issue",
    method: "POST",
    path: "/svc/oauth/te",
    fn: "token",
    version: "oauth",
    auth: "client",
    summary: "Issue an access token (OAuth 2.0 token endpoint)",
    description:
      "grant_type=client_credentials (SPEC 5.2). Client authentication by HTTP Basic or by client_id and client_secret form fields (RFC 6749 2.3.1). Errors per RFC 6749 5.2.",
    tags: ["tokens"],
    request: { body: { contentType: "form", schema: tokenRequest, required: true } },
    responses: {
      200: { description: "Token issued", schema: tokenResponse },
      400: { description: "invalid_request, unsupported_grant_type, invalid_scope", schema: oauthError },
      401: { description: "invalid_client", schema: oauthError },
    },
  },
  {
    id: "token.jwks",
    method: "GET",
    path: "/svc/.well-known/jwks.json",
    fn: "token",
    version: "meta",
    auth: "none",
    summary: "Public keys that verify access tokens (JWKS, RFC 7517)",
    tags: ["tokens"],
    responses: {
      200: {
        description: "Key set",
        schema: {
          type: "object",
          required: ["keys"],
          properties: { keys: { type: "array", items: { type: "object" } } },
        },
      },
    },
  },
  {
    id: "meta.health",
    method: "GET",
    path: "/svc/health",
    fn: "meta",
    version: "meta",
    auth: "none",
    summary: "Health: 200 once storage answers",
    tags: ["service"],
    responses: {
      200: {
        description: "Storage answers",
        schema: { type: "object", required: ["status"], properties: { status: { const: "ok" } } },
      },
      503: { description: "Storage does not answer", schema: v3Error },
    },
  },
  {
    id: "meta.openapi",
    method: "GET",
    path: "/svc/api/openapi.json",
    fn: "meta",
    version: "meta",
    auth: "none",
    summary: "This OpenAPI 3.1 document",
    tags: ["service"],
    responses: { 200: { description: "OpenAPI document", schema: { type: "object" } } },
  },
  {
    id: "users.get",
    method: "GET",
    path: "/svc/api/v3/users/{subjectId}",
    fn: "users",
    version: "v3",
    auth: "bearer",
    permissions: { user: ["svc_api_user"], system: ["svc_api_sys_users"] },
    subject: { param: "subjectId", kind: "subjectId" },
    summary: "Read the attributes of an account (SPEC 4.6)",
    tags: ["users"],
    request: { params: subjectIdParam },
    responses: {
      200: { description: "Account attributes with meta", schema: accountView },
      400: { description: "Malformed subject id", schema: v3Error },
      401: { description: "bad_access_token", schema: v3Error },
      404: { description: "unknown_user", schema: v3Error },
    },
  },
  {
    id: "users.change",
    method: "POST",
    path: "/svc/api/v3/users/{subjectId}",
    fn: "users",
    version: "v3",
    auth: "bearer",
    permissions: { user: ["svc_api_user_chg"], system: ["svc_api_sys_users_chg"] },
    subject: { param: "subjectId", kind: "instanceId" },
    summary: "Change attributes of an account (SPEC 4.6); the path carries meta.instanceId",
    description:
      "The path segment is the account's meta.instanceId (SPEC 4.6 writes it {instanceId}). Send only the attributes to change. sub is unmodifiable; locked and contact values with vrf=true are system mode only.",
    tags: ["users"],
    request: {
      params: instanceIdInPath,
      body: { contentType: "json", schema: accountChange, required: true },
    },
    responses: {
      200: { description: "The changed account", schema: accountView },
      400: { description: "input_error: wrong_values, contact_use_violation", schema: v3Error },
      401: { description: "bad_access_token", schema: v3Error },
      404: { description: "unknown_user", schema: v3Error },
    },
  },
  {
    id: "users.search",
    method: "GET",
    path: "/svc/api/v3/users",
    fn: "users",
    version: "v3",
    auth: "bearer",
    permissions: { system: ["svc_api_sys_users"] },
    summary: "Search accounts with RQL (SPEC 4.7)",
    description:
      "query: and, or, eq (or name=value with & and |), limit(count[,offset]); string values as string:<value>. In each value percent-escape & | ( ) = < > , and %, assemble name=<escaped value>, then URL-encode the whole as the query parameter. Equality on an indexed attribute (search.indexedAttributes: sub, email, phone_number, family_name, given_name, middle_name by default) is a lookup by key; other attributes (locked) may only narrow an and() that has one. Names and e-mail ignore case; phones compare by digits. At most 1000 accounts per lookup and answer.",
    tags: ["users", "search"],
    request: { query: searchQuery },
    responses: {
      200: { description: "Matching accounts, by sub", schema: searchResults },
      400: {
        description: "input_error: wrong_query, unknown_attribute, not_indexed, too_many_results",
        schema: v3Error,
      },
      401: badAccessToken,
    },
  },
  {
    id: "rights.of-user",
    method: "GET",
    path: "/svc/api/v3/rights/of/{subjectId}",
    ...rightsCall,
    permissions: { user: ["svc_user_rights"], system: ["svc_rights_full_access"] },
    subject: { param: "subjectId", kind: "subjectId" },
    summary: "Rights a user holds (SPEC 4.3)",
    description:
      "Object key (user id, its|<app_id>, grps|<group_id>|<profile>) -> right -> tags. A user token reads its own.",
    tags: ["rights"],
    request: { params: subjectIdParam },
    responses: {
      200: { description: "Rights by object", schema: rightsOfResponse },
      400: { description: "process_error unknown_user; input_error", schema: v3Error },
      401: badAccessToken,
    },
  },
  {
    id: "rights.of-app",
    method: "GET",
    path: "/svc/api/v3/rights/of/its/{appId}",
    ...rightsCall,
    summary: "Rights an application holds (SPEC 4.3)",
    tags: ["rights"],
    request: { params: appIdParam },
    responses: {
      200: { description: "Rights by object", schema: rightsOfResponse },
      400: { description: "process_error unknown_rp; input_error", schema: v3Error },
      401: badAccessToken,
    },
  },
  {
    id: "rights.on-user",
    method: "GET",
    path: "/svc/api/v3/rights/on/{subjectId}",
    ...rightsCall,
    summary: "Rights held on a user (SPEC 4.3)",
    description: "Subject key (user id or its|<app_id>) -> right names.",
    tags: ["rights"],
    request: { params: subjectIdParam },
    responses: {
      200: { description: "Rights by subject", schema: rightsOnResponse },
      400: { description: "process_error unknown_user; input_error", schema: v3Error },
      401: badAccessToken,
    },
  },
  {
    id: "rights.on-group",
    method: "GET",
    path: "/svc/api/v3/rights/on/grps/{groupId}",
    ...rightsCall,
    summary: "Rights held on a group (SPEC 4.3); objectExt is the group's profile",
    tags: ["rights"],
    request: { params: groupIdParam, query: objectExtQuery },
    responses: {
      200: { description: "Rights by subject", schema: rightsOnResponse },
      400: { description: "process_error unknown_group; input_error", schema: v3Error },
      401: badAccessToken,
    },
  },
  {
    id: "rights.on-app",
    method: "GET",
    path: "/svc/api/v3/rights/on/its/{appId}",
    ...rightsCall,
    summary: "Rights held on an application (SPEC 4.3)",
    tags: ["rights"],
    request: { params: appIdParam },
    responses: {
      200: { description: "Rights by subject", schema: rightsOnResponse },
      400: { description: "process_error unknown_rp; input_error", schema: v3Error },
      401: badAccessToken,
    },
  },
  {
    id: "rights.assign",
    method: "PUT",
    path: "/svc/api/v3/rights",
    ...rightsCall,
    summary: "Assign rights with tags (SPEC 4.3)",
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
  },
  {
    id: "rights.revoke",
    method: "DELETE",
    path: "/svc/api/v3/rights",
    ...rightsCall,
    summary: "Revoke tags of rights (SPEC 4.3)",
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
  },
  {
    id: "rights.change",
    method: "POST",
    path: "/svc/api/v2/users/rights/change",
    fn: "rights",
    version: "v2",
    auth: "bearer-or-basic",
    permissions: { user: ["svc_user_rights"], system: ["svc_rm_rights"] },
    summary: "Assign and revoke rights of a lead account over others (SPEC 4.3)",
    description:
      "update and delete are applied together in one transaction, delete first. A user token (svc_user_rights) names itself as every subject; a system token (svc_rm_rights) or the REST password may only revoke, for any subject. The answer lists each right touched with its tags afterwards.",
    tags: ["rights"],
    request: { body: { contentType: "json", schema: rightsChangeBody, required: true } },
    responses: {
      200: { description: "Applied", schema: rightsChangeResponse },
      400: { description: "validation_error", schema: v2Error },
      401: accessDenied,
      409: { description: "changed_concurrently: try again", schema: v2Error },
    },
  },
  {
    id: "rights.catalogue-list",
    method: "GET",
    path: "/svc/admin/api/v3/rights",
    ...rightsCall,
    permissions: { user: ["svc_user_rights"], system: ["svc_rights_full_access"] },
    summary: "List the rights catalogue (SPEC 4.16)",
    tags: ["rights catalogue"],
    responses: {
      200: {
        description: "Built-in rights, then the others by name",
        schema: { type: "array", items: rightDefinition },
      },
      401: badAccessToken,
    },
  },
  {
    id: "rights.catalogue-get",
    method: "GET",
    path: "/svc/admin/api/v3/rights/{name}",
    ...rightsCall,
    permissions: { user: ["svc_user_rights"], system: ["svc_rights_full_access"] },
    summary: "Read one right definition (SPEC 4.16)",
    tags: ["rights catalogue"],
    request: { params: rightNameParam },
    responses: {
      200: { description: "The definition", schema: rightDefinition },
      400: { description: "input_error", schema: v3Error },
      401: badAccessToken,
      404: { description: "unknown_right", schema: v3Error },
    },
  },
  {
    id: "rights.catalogue-create",
    method: "POST",
    path: "/svc/admin/api/v3/rights",
    ...rightsCall,
    summary: "Add a right to the catalogue (SPEC 4.16)",
    description: "name, description, and the kinds of subject (user, its) and object (user, grps, its) it applies to.",
    tags: ["rights catalogue"],
    request: { body: { contentType: "json", schema: newRightBody, required: true } },
    responses: {
      201: { description: "Created", schema: rightDefinition },
      400: { description: "input_error", schema: v3Error },
      401: badAccessToken,
      409: { description: "right_exists", schema: v3Error },
    },
  },
  {
    id: "rights.catalogue-delete",
    method: "DELETE",
    path: "/svc/admin/api/v3/rights/{name}",
    ...rightsCall,
    summary: "Remove a right from the catalogue (SPEC 4.16)",
    description: "It can no longer be assigned; grants made earlier stay listed and can be revoked.",
    tags: ["rights catalogue"],
    request: { params: rightNameParam },
    responses: {
      204: { description: "Removed" },
      400: { description: "builtin_right; input_error", schema: v3Error },
      401: badAccessToken,
      404: { description: "unknown_right", schema: v3Error },
    },
  },
  {
    id: "groups.get",
    method: "GET",
    path: "/svc/api/v2/grps/{groupId}",
    ...groupCall,
    summary: "Read a group (SPEC 4.8)",
    request: { params: groupIdParam, query: profileExpandQuery },
    responses: {
      200: { description: "The group; with expand=true every attribute", schema: groupView },
      400: { description: "validation_error", schema: v2Error },
      401: accessDenied,
      404: { description: "group_not_found", schema: v2Error },
    },
  },
  {
    id: "groups.list",
    method: "GET",
    path: "/svc/api/v2/grps",
    ...groupCall,
    summary: "List the groups of a profile, filtered with RQL (SPEC 4.8)",
    request: { query: groupListQuery },
    responses: {
      200: { description: "Groups in id order: ids, or with expand=true every attribute", schema: groupList },
      400: { description: "validation_error (a malformed rql)", schema: v2Error },
      401: accessDenied,
    },
  },
  {
    id: "groups.create",
    method: "POST",
    path: "/svc/api/v2/grps",
    ...groupCall,
    summary: "Create a group (SPEC 4.8)",
    description: "profile, id (unique in the profile), name, and the profile's attributes as plain fields.",
    request: { body: { contentType: "json", schema: newGroupBody, required: true } },
    responses: {
      201: { description: "Created", schema: groupView },
      400: { description: "validation_error", schema: v2Error },
      401: accessDenied,
      409: { description: "group_already_exists", schema: v2Error },
    },
  },
  {
    id: "groups.change",
    method: "POST",
    path: "/svc/api/v2/grps/{groupId}",
    ...groupCall,
    summary: "Change a group (SPEC 4.8)",
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
  },
  {
    id: "groups.delete",
    method: "DELETE",
    path: "/svc/api/v2/grps/{groupId}",
    ...groupCall,
    summary: "Delete a group with its members and the rights held on it (SPEC 4.8)",
    description:
      "The group is gone for every call at once; its members and rights are cleared after. If that is interrupted, repeat the DELETE to finish.",
    request: { params: groupIdParam, query: profileQuery },
    responses: {
      204: { description: "Deleted" },
      400: { description: "validation_error", schema: v2Error },
      401: accessDenied,
      404: { description: "group_not_found", schema: v2Error },
    },
  },
  {
    id: "groups.members",
    method: "GET",
    path: "/svc/api/v2/grps/{groupId}/members",
    ...groupCall,
    summary: "List the members of a group (SPEC 4.8)",
    request: { params: groupIdParam, query: membersQuery },
    responses: {
      200: { description: "Members by subject id; expand=true adds names", schema: memberList },
      400: { description: "validation_error", schema: v2Error },
      401: accessDenied,
      404: { description: "group_not_found", schema: v2Error },
    },
  },
  {
    id: "groups.members-add",
    method: "POST",
    path: "/svc/api/v2/grps/{groupId}/members/add",
    ...groupCall,
    summary: "Add accounts to a group, all or none (SPEC 4.8)",
    request: membersChange,
    responses: {
      200: { description: "The members added", schema: memberResults },
      400: { description: "validation_error, user_not_found", schema: v2Error },
      401: accessDenied,
      404: { description: "group_not_found", schema: v2Error },
      409: { description: "some_members_already_in_group", schema: v2Error },
    },
  },
  {
    id: "groups.members-rm",
    method: "POST",
    path: "/svc/api/v2/grps/{groupId}/members/rm",
    ...groupCall,
    summary: "Remove accounts from a group, all or none (SPEC 4.8)",
    request: membersChange,
    responses: {
      200: { description: "The members removed", schema: memberResults },
      400: { description: "validation_error, user_not_found", schema: v2Error },
      401: accessDenied,
      404: { description: "group_not_found", schema: v2Error },
      409: { description: "some_members_not_in_group", schema: v2Error },
    },
  },
];

const byKey = new Map(routes.map((route) => [routeKey(route), route]));

export function routeByKey(key: string): RouteDefinition | undefined {
  return byKey.get(key);
}
