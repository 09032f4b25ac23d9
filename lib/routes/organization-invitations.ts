import {
  INVITATION_ID_PATTERN,
  INVITATIONS_PER_PAGE,
  type InvitationUseCases,
} from "../domain/organizations/invitations";
import type { OrganizationUseCases } from "../domain/organizations/organizations";
import { jsonResult } from "../http/error-body";
import { group, route } from "../http/route";
import { callerOf, notFound, orgCall, orgId, orgParams, requireRightsPermission, roles } from "./organizations";
import { badAccessToken, queryNumber, v3Error } from "./schemas";

/** Schemas of the organization invitation calls (docs/organizations.md#invitations). */

const invitationId = { type: "string", pattern: INVITATION_ID_PATTERN, description: "an invitation's id" } as const;

export const invitationParams = {
  type: "object",
  required: ["orgId", "invitationId"],
  properties: { orgId, invitationId },
} as const;

export const inviteBody = {
  type: "object",
  required: ["email"],
  additionalProperties: false,
  properties: {
    email: { type: "string", minLength: 3, maxLength: 254, description: "the address invited" },
    roles,
    language: { enum: ["ru", "en"], description: "the message's and the pages' language (default: the service's)" },
  },
} as const;

export const invitationsQuery = {
  type: "object",
  additionalProperties: false,
  properties: {
    limit: {
      type: "string",
      pattern: "^(100|[1-9][0-9]?)$",
      description: `invitations per page, 1-${INVITATIONS_PER_PAGE} (default ${INVITATIONS_PER_PAGE})`,
    },
    cursor: { ...invitationId, description: "the `next` of the previous page" },
  },
} as const;

export const invitationView = {
  type: "object",
  required: ["invitationId", "email", "roles", "language", "createdAt", "expiresAt"],
  properties: {
    invitationId: { type: "string" },
    email: { type: "string" },
    roles: { type: "array", items: { type: "string" } },
    language: { enum: ["ru", "en"] },
    invitedBy: { type: "string", description: "the admin's subject id; absent when an application invited" },
    createdAt: { type: "string", format: "date-time" },
    expiresAt: { type: "string", format: "date-time" },
  },
} as const;

export const invitationsPage = {
  type: "object",
  required: ["invitations"],
  properties: {
    invitations: { type: "array", items: invitationView, description: "pending ones, in id order" },
    next: { type: "string", description: "present while more may follow: pass it as `cursor`" },
  },
} as const;

type Orgs = Pick<OrganizationUseCases, "adminPrefetch">;

const inviteRoute = (invitations: InvitationUseCases, orgs: Orgs) =>
  route({
    id: "orgs.invite",
    method: "POST",
    path: "/svc/api/v3/orgs/{orgId}/invitations",
    ...orgCall,
    event: { type: "orgs.invite", inTransaction: true },
    summary: "Invite an e-mail address to an organization, with roles",
    description:
      "Stores the invitation and its link token's digest in one transaction, then sends the address a message (ru or en) with a single-use link to the hosted invitation page, valid invitations.ttlDays (7 by default). One pending invitation per address: another answers 409 invitation_pending (revoke it first). An application inviting with roles needs svc_rights_full_access besides svc_groups. The answer never holds the token. Publishes invitation.sent.",
    request: { params: orgParams, body: { contentType: "json", schema: inviteBody, required: true } },
    prefetch: (caller) => orgs.adminPrefetch(caller.sub, caller.params.orgId),
    responses: {
      201: { description: "Invited", schema: invitationView },
      400: { description: "input_error; process_error unknown_right", schema: v3Error },
      401: badAccessToken,
      404: notFound,
      409: { description: "invitation_pending", schema: v3Error },
    },
    handler: async (call) => {
      requireRightsPermission(call, call.body.roles);
      return jsonResult(201, await invitations.invite(callerOf(call), call.params.orgId, call.body));
    },
  });

const listRoute = (invitations: InvitationUseCases, orgs: Orgs) =>
  route({
    id: "orgs.invitations",
    method: "GET",
    path: "/svc/api/v3/orgs/{orgId}/invitations",
    ...orgCall,
    summary: "An organization's pending invitations, a page at a time",
    description:
      "One Query of the organization's partition from the cursor; accepted and expired invitations are left out. Never the tokens.",
    request: { params: orgParams, query: invitationsQuery },
    prefetch: (caller) => orgs.adminPrefetch(caller.sub, caller.params.orgId),
    responses: {
      200: { description: "A page of pending invitations; `next` while more may follow", schema: invitationsPage },
      400: { description: "input_error (a malformed limit or cursor)", schema: v3Error },
      401: badAccessToken,
      404: notFound,
    },
    handler: async (call) => {
      const { limit, cursor } = call.query;
      const page = await invitations.list(callerOf(call), call.params.orgId, {
        limit: queryNumber(limit),
        cursor,
      });
      return jsonResult(200, page);
    },
  });

const revokeRoute = (invitations: InvitationUseCases, orgs: Orgs) =>
  route({
    id: "orgs.invitation-revoke",
    method: "DELETE",
    path: "/svc/api/v3/orgs/{orgId}/invitations/{invitationId}",
    ...orgCall,
    event: { type: "orgs.invitation-revoke", inTransaction: true },
    summary: "Revoke a pending invitation: its link stops working",
    description:
      "One transaction, only while the invitation is not accepted: the invitation, its address's guard and its token item. Publishes invitation.revoked.",
    request: { params: invitationParams },
    prefetch: (caller) => orgs.adminPrefetch(caller.sub, caller.params.orgId),
    responses: {
      204: { description: "Revoked" },
      400: { description: "input_error", schema: v3Error },
      401: badAccessToken,
      404: {
        description: "group_not_found (organization), invitation_not_found (no pending invitation of this id)",
        schema: v3Error,
      },
    },
    handler: async (call) => {
      await invitations.revoke(callerOf(call), call.params.orgId, call.params.invitationId);
      return jsonResult(204, undefined);
    },
  });

export const invitationRoutes = (invitations: InvitationUseCases, orgs: Orgs) =>
  group(
    "groups",
    [inviteRoute, listRoute, revokeRoute].map((r) => r(invitations, orgs)),
  );
