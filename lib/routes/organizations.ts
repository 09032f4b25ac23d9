import { SUB_PATTERN } from "../domain/accounts/new-account";
import { problems } from "../domain/errors";
import { GROUP_ID_PATTERN } from "../domain/groups/group";
import {
  MAX_ROLES,
  ORG_MEMBERS_PER_PAGE,
  type OrganizationUseCases,
  type OrgCaller,
} from "../domain/organizations/organizations";
import { RIGHT_NAME_PATTERN } from "../domain/rights/catalogue";
import { jsonResult } from "../http/error-body";
import { userCallEvent } from "../http/middleware/security-event";
import { type ApiCall, group, route } from "../http/route";
import { groupView } from "./groups";
import { badAccessToken, queryNumber, v3Error } from "./schemas";

/** Schemas of the organization admin calls (docs/organizations.md). */

export const orgId = {
  type: "string",
  pattern: GROUP_ID_PATTERN,
  description: "the organization: a group of profile org",
} as const;
const subjectId = { type: "string", pattern: SUB_PATTERN, description: "a member's subject id" } as const;

export const orgParams = { type: "object", required: ["orgId"], properties: { orgId } } as const;
export const orgMemberParams = {
  type: "object",
  required: ["orgId", "subjectId"],
  properties: { orgId, subjectId },
} as const;

export const roles = {
  type: "array",
  maxItems: MAX_ROLES,
  items: { type: "string", pattern: RIGHT_NAME_PATTERN },
  description: `rights over the organization's group (catalogue, interface §4.16), at most ${MAX_ROLES}`,
} as const;

export const orgMembersQuery = {
  type: "object",
  additionalProperties: false,
  properties: {
    limit: {
      type: "string",
      pattern: "^(100|[1-9][0-9]?)$",
      description: `members per page, 1-${ORG_MEMBERS_PER_PAGE} (default ${ORG_MEMBERS_PER_PAGE})`,
    },
    cursor: {
      type: "string",
      minLength: 1,
      maxLength: 172,
      pattern: "^[A-Za-z0-9_-]+$",
      description: "the `next` of the previous page",
    },
  },
} as const;

export const addOrgMemberBody = {
  type: "object",
  required: ["subjectId"],
  additionalProperties: false,
  properties: { subjectId, roles },
} as const;

export const setOrgRolesBody = {
  type: "object",
  required: ["roles"],
  additionalProperties: false,
  properties: { roles },
} as const;

const orgMember = {
  type: "object",
  required: ["subjectId", "roles"],
  properties: {
    subjectId: { type: "string" },
    family_name: { type: "string" },
    given_name: { type: "string" },
    middle_name: { type: "string" },
    roles: { type: "array", items: { type: "string" }, description: "rights held over the organization's group" },
  },
} as const;

export const orgMembersPage = {
  type: "object",
  required: ["members"],
  properties: {
    members: { type: "array", items: orgMember, description: "in subject id order" },
    next: { type: "string", description: "present while more members may follow: pass it as `cursor`" },
  },
} as const;

export const orgRoles = {
  type: "object",
  required: ["subjectId", "roles"],
  properties: { subjectId: { type: "string" }, roles: { type: "array", items: { type: "string" } } },
} as const;

/** User tokens with svc_org_admin on organizations they hold ORG_ADMIN over; applications with svc_groups. */
export const orgCall = {
  version: "v3",
  auth: "bearer",
  permissions: { user: ["svc_org_admin"], system: ["svc_groups"] },
  tags: ["organizations"],
} as const;

/** Role grants in system mode take the rights API's permission (PUT /svc/api/v3/rights). */
export const RIGHTS_PERMISSION = "svc_rights_full_access";
const roleCall = { ...orgCall, permissions: { user: ["svc_org_admin"], system: [RIGHTS_PERMISSION] } } as const;

/** Roles are rights: an application grants them (adding a member, inviting) with the rights API's permission. */
export function requireRightsPermission(call: Pick<ApiCall, "principal">, roles: string[] | undefined): void {
  const principal = call.principal;
  if (principal?.mode === "system" && (roles?.length ?? 0) > 0 && !principal.scopes.has(RIGHTS_PERMISSION))
    throw problems.badAccessToken("insufficient_scope", { error: "insufficient_scope", scope: RIGHTS_PERMISSION });
}

export const notFound = {
  description: "group_not_found: no such organization, or one the caller does not administer",
  schema: v3Error,
} as const;

/** A change of an existing member's standing: refused for the org, the membership or its last admin. */
const memberChangeRefusals = {
  401: badAccessToken,
  404: notFound,
  409: { description: "some_members_not_in_group, last_org_admin, changed_concurrently", schema: v3Error },
} as const;

/** The caller as the domain sees it: a user-mode call brings the ORG_ADMIN its session check read. */
export function callerOf(
  call: Pick<ApiCall, "principal" | "route" | "sourceIp" | "userAgent"> & { prefetched?: boolean },
): OrgCaller {
  const event = userCallEvent(call);
  if (call.principal?.mode !== "user" || !event) return { mode: "system" };
  return { mode: "user", sub: call.principal.sub, prefetched: call.prefetched, event };
}

const getOrg = (orgs: OrganizationUseCases) =>
  route({
    id: "orgs.get",
    method: "GET",
    path: "/svc/api/v3/orgs/{orgId}",
    ...orgCall,
    summary: "An organization (docs/organizations.md)",
    description:
      "The group of profile org, as GET /svc/api/v2/grps/{id}?profile=org&expand=true answers it. A user token (svc_org_admin) reads only an organization it holds ORG_ADMIN over; any other answers 404 like a missing one.",
    request: { params: orgParams },
    prefetch: (caller) => orgs.adminPrefetch(caller.sub, caller.params.orgId),
    responses: {
      200: { description: "The organization", schema: groupView },
      400: { description: "input_error", schema: v3Error },
      401: badAccessToken,
      404: notFound,
    },
    handler: async (call) => jsonResult(200, await orgs.read(callerOf(call), call.params.orgId)),
  });

const listMembers = (orgs: OrganizationUseCases) =>
  route({
    id: "orgs.members",
    method: "GET",
    path: "/svc/api/v3/orgs/{orgId}/members",
    ...orgCall,
    summary: "An organization's members with their names and roles, a page at a time",
    description:
      "One Query of the member list from the cursor, then the page's accounts (one BatchGetItem) and the rights held over the group in the page's range of subject ids (one Query), side by side. Never a scan, whatever the organization's size.",
    request: { params: orgParams, query: orgMembersQuery },
    prefetch: (caller) => orgs.adminPrefetch(caller.sub, caller.params.orgId),
    responses: {
      200: { description: "A page of members; `next` while more may follow", schema: orgMembersPage },
      400: { description: "input_error (a malformed limit or cursor)", schema: v3Error },
      401: badAccessToken,
      404: notFound,
    },
    handler: async (call) => {
      const { limit, cursor } = call.query;
      const page = await orgs.members(callerOf(call), call.params.orgId, {
        limit: queryNumber(limit),
        cursor,
      });
      return jsonResult(200, page);
    },
  });

const addMember = (orgs: OrganizationUseCases) =>
  route({
    id: "orgs.member-add",
    method: "POST",
    path: "/svc/api/v3/orgs/{orgId}/members",
    ...orgCall,
    event: { type: "orgs.member-add", inTransaction: true },
    summary: "Add an existing account to an organization, with roles",
    description:
      "One transaction: the membership both ways and each role's grant (tag org); an application granting roles needs svc_rights_full_access besides svc_groups. Checked against the organization, the caller's ORG_ADMIN (user mode), the account and each custom right's catalogue entry. Publishes group.member_added.",
    request: { params: orgParams, body: { contentType: "json", schema: addOrgMemberBody, required: true } },
    prefetch: (caller) => orgs.adminPrefetch(caller.sub, caller.params.orgId),
    responses: {
      201: { description: "Added", schema: orgRoles },
      400: { description: "input_error; process_error user_not_found, unknown_right", schema: v3Error },
      401: badAccessToken,
      404: notFound,
      409: { description: "some_members_already_in_group", schema: v3Error },
    },
    handler: async (call) => {
      requireRightsPermission(call, call.body.roles);
      return jsonResult(201, await orgs.addMember(callerOf(call), call.params.orgId, call.body));
    },
  });

const removeMember = (orgs: OrganizationUseCases) =>
  route({
    id: "orgs.member-remove",
    method: "DELETE",
    path: "/svc/api/v3/orgs/{orgId}/members/{subjectId}",
    ...orgCall,
    event: { type: "orgs.member-remove", inTransaction: true },
    summary: "Remove a member and the roles it held over the organization",
    description:
      "One transaction, guarded by the member's roles as read: the membership both ways and every right held over the group. The organization's last ORG_ADMIN cannot be removed (409 last_org_admin). Publishes group.member_removed.",
    request: { params: orgMemberParams },
    prefetch: (caller) => orgs.adminPrefetch(caller.sub, caller.params.orgId),
    responses: {
      204: { description: "Removed" },
      400: { description: "input_error", schema: v3Error },
      ...memberChangeRefusals,
    },
    handler: async (call) => {
      await orgs.removeMember(callerOf(call), call.params.orgId, call.params.subjectId);
      return jsonResult(204, undefined);
    },
  });

const setRoles = (orgs: OrganizationUseCases) =>
  route({
    id: "orgs.member-roles",
    method: "PUT",
    path: "/svc/api/v3/orgs/{orgId}/members/{subjectId}/roles",
    ...roleCall,
    event: { type: "orgs.member-roles", inTransaction: true },
    summary: "Set a member's roles over the organization",
    description:
      "Grants the roles not held and revokes those not named, in one transaction guarded by the member's roles as read. Roles are rights from the catalogue that apply to a user over a group (ORG_ADMIN, SYS_MON, custom ones). The organization's last ORG_ADMIN keeps it (409 last_org_admin).",
    request: { params: orgMemberParams, body: { contentType: "json", schema: setOrgRolesBody, required: true } },
    prefetch: (caller) => orgs.adminPrefetch(caller.sub, caller.params.orgId),
    responses: {
      200: { description: "The member's roles now", schema: orgRoles },
      400: { description: "input_error; process_error unknown_right", schema: v3Error },
      ...memberChangeRefusals,
    },
    handler: async (call) =>
      jsonResult(200, await orgs.setRoles(callerOf(call), call.params.orgId, call.params.subjectId, call.body)),
  });

export const organizationsRoutes = (orgs: OrganizationUseCases) =>
  group(
    "groups",
    [getOrg, listMembers, addMember, removeMember, setRoles].map((r) => r(orgs)),
  );
