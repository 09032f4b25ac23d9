import type { AuditUseCases } from "../domain/audit/audit";
import { eventView } from "../domain/audit/event-view";
import { userAgentDescriber } from "../domain/devices/device";
import { jsonResult } from "../http/error-body";
import { group, route } from "../http/route";
import { badAccessToken, subjectIdParam, subjectItemParams, v3Error } from "./schemas";

export const auditQuery = {
  type: "object",
  additionalProperties: false,
  properties: {
    rql: {
      type: "string",
      maxLength: 300,
      description: "and(ge(ts,<ms>),le(ts,<ms>),limit(<n>)); each part optional; limit 1-1000 (default 100)",
    },
    ua: {
      type: "string",
      enum: ["raw", "parsed", "none"],
      description: "User-Agent as sent (default), parsed, or left out",
    },
  },
} as const;

export const eventList = {
  type: "array",
  items: {
    type: "object",
    required: ["sbj", "ts", "type", "cId"],
    properties: {
      sbj: { type: "string" },
      ts: { type: "integer", description: "milliseconds since the epoch" },
      type: { type: "string" },
      cId: { type: "string", description: "the application" },
      ip: { type: "string" },
      ua: { description: "string (raw) or {browser, os, deviceType, device} (ua=parsed)" },
      sid: { type: "string" },
      result: { type: "string", description: "ok, or the error that refused the call" },
      prms: { type: "object" },
    },
  },
} as const;

export const consentList = {
  type: "array",
  items: {
    type: "object",
    required: ["id", "updated", "client_id", "scopes"],
    properties: {
      id: { type: "string" },
      updated: { type: "integer", description: "milliseconds since the epoch of the latest grant" },
      client_id: { type: "string" },
      scopes: { type: "array", items: { type: "string" } },
    },
  },
} as const;

export const consentParams = subjectItemParams("consent id from the list");

const eventsRoute = (audit: AuditUseCases) =>
  route({
    id: "audit.events",
    method: "GET",
    path: "/svc/api/v3/users/{subjectId}/audit",
    version: "v3",
    auth: "bearer",
    permissions: { user: ["svc_api_uaud"], system: ["svc_api_sys_uaud"] },
    subject: { param: "subjectId", kind: "subjectId" },
    summary: "Read the security events of an account, newest first (interface §4.16, 6)",
    description:
      "One DynamoDB range query on the event time. rql=and(ge(ts,<ms>),le(ts,<ms>),limit(<n>)) narrows it (each part optional; limit default 100, at most 1000); ua=raw (default), parsed ({browser, os, deviceType, device}) or none. Events older than audit.retentionDays are gone.",
    tags: ["audit"],
    request: { params: subjectIdParam, query: auditQuery },
    responses: {
      200: { description: "Events: sbj, ts (ms), type, cId, ip, ua, sid, result, prms", schema: eventList },
      400: { description: "wrong_value (rql), wrong_values", schema: v3Error },
      401: badAccessToken,
    },
    handler: async (call) => {
      const events = await audit.events(call.subject, call.query.rql);
      const ua = call.query.ua ?? "raw";
      const describe = ua === "parsed" ? await userAgentDescriber() : undefined;
      return jsonResult(
        200,
        events.map((event) => eventView(event, ua, describe)),
      );
    },
  });

const aclsList = (audit: AuditUseCases) =>
  route({
    id: "audit.acls-list",
    method: "GET",
    path: "/svc/api/v3/users/{subjectId}/acls",
    version: "v3",
    auth: "bearer",
    permissions: { user: ["svc_api_usec"], system: ["svc_api_sys_usec"] },
    subject: { param: "subjectId", kind: "subjectId" },
    summary: "List the permissions the user granted each application (consents, interface §4.16)",
    description:
      "One entry per application, written by its password-grant logins; scopes accumulate, most recent first.",
    tags: ["audit"],
    request: { params: subjectIdParam },
    responses: {
      200: { description: "[{id, updated (ms), client_id, scopes}]", schema: consentList },
      401: badAccessToken,
    },
    handler: async (call) => jsonResult(200, await audit.consents(call.subject)),
  });

const aclsDelete = (audit: AuditUseCases) =>
  route({
    id: "audit.acls-delete",
    method: "DELETE",
    path: "/svc/api/v3/users/{subjectId}/acls/{id}",
    version: "v3",
    auth: "bearer",
    permissions: { user: ["svc_api_usec_chg"], system: ["svc_api_sys_usec_chg"] },
    subject: { param: "subjectId", kind: "subjectId" },
    userHeaders: true,
    event: { type: "consent_withdraw" },
    summary: "Withdraw a consent and end that application's sessions of the user (interface §4.16)",
    description: "The application's access and refresh tokens for this user are refused at once.",
    tags: ["audit"],
    request: { params: consentParams },
    responses: {
      204: { description: "Withdrawn" },
      401: badAccessToken,
      404: { description: "unknown_consent", schema: v3Error },
    },
    handler: async (call) => {
      await audit.withdrawConsent(call.subject, call.params.id);
      return jsonResult(204, undefined);
    },
  });

export const auditRoutes = (audit: AuditUseCases) =>
  group("audit", [eventsRoute(audit), aclsList(audit), aclsDelete(audit)]);
