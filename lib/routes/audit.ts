import { config } from "../config/current";
import { services } from "../container";
import { parseEventQuery } from "../domain/audit/event-query";
import { eventView } from "../domain/audit/event-view";
import type { SecurityEvent } from "../domain/audit/security-event";
import { problems } from "../domain/errors";
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

async function readEvents(sub: string, rql: string | undefined): Promise<SecurityEvent[]> {
  const query = parseEventQuery(rql);
  // Events past their retention may wait for TTL a while; they are not shown.
  const oldest = Date.now() - config().settings.audit.retentionDays * 86_400_000;
  const from = Math.max(query.from ?? 0, oldest);
  const to = query.to ?? Date.now() + 60_000;
  return from > to ? [] : services().events.list(sub, from, to, query.limit);
}

const eventsRoute = route({
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
    const events = await readEvents(call.subject, call.query.rql);
    return jsonResult(
      200,
      events.map((event) => eventView(event, call.query.ua ?? "raw")),
    );
  },
});

const aclsList = route({
  id: "audit.acls-list",
  method: "GET",
  path: "/svc/api/v3/users/{subjectId}/acls",
  version: "v3",
  auth: "bearer",
  permissions: { user: ["svc_api_usec"], system: ["svc_api_sys_usec"] },
  subject: { param: "subjectId", kind: "subjectId" },
  summary: "List the permissions the user granted each application (consents, interface §4.16)",
  description: "One entry per application, written by its password-grant logins; scopes accumulate, most recent first.",
  tags: ["audit"],
  request: { params: subjectIdParam },
  responses: {
    200: { description: "[{id, updated (ms), client_id, scopes}]", schema: consentList },
    401: badAccessToken,
  },
  handler: async (call) => jsonResult(200, await services().consents.list(call.subject)),
});

const aclsDelete = route({
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
    const sub = call.subject;
    const clientId = await services().consents.remove(sub, call.params.id);
    if (clientId === undefined) throw problems.unknownConsent();
    // Its sessions end, so its tokens are refused at once; the devices stay remembered.
    await services().sessions.endSessionsAndDevices(sub, {
      session: (session) => session.clientId === clientId,
      device: () => false,
    });
    return jsonResult(204, undefined);
  },
});

export const auditRoutes = group("audit", [eventsRoute, aclsList, aclsDelete]);
