import { ACTIVITY_LIMITS, type ActivityUseCases } from "../domain/audit/activity";
import { EVENT_TYPES, fullType } from "../events/cloud-event";
import { jsonResult } from "../http/error-body";
import { group, route } from "../http/route";
import { eventList } from "./audit";
import { badAccessToken, v3Error } from "./schemas";

/** Schemas of the cross-account activity calls (interface §4.18). */

const msParam = (description: string) => ({ type: "string", pattern: "^[0-9]{1,15}$", description }) as const;

/** The paging parameters both listings take; `keptBy` names the setting that bounds `from`. */
const pageParams = (keptBy: string, cursorLength: number) =>
  ({
    from: msParam(
      `ms since the epoch, inclusive (default: ${ACTIVITY_LIMITS.defaultWindowHours} hours ago; at most ${keptBy} back)`,
    ),
    to: msParam("ms since the epoch, inclusive (default: now)"),
    limit: {
      type: "string",
      pattern: "^(100|[1-9][0-9]?)$",
      description: `events per page, 1-${ACTIVITY_LIMITS.maxLimit} (default ${ACTIVITY_LIMITS.defaultLimit})`,
    },
    cursor: {
      type: "string",
      minLength: 1,
      maxLength: cursorLength,
      pattern: "^[A-Za-z0-9_-]+$",
      description: "the `next` of the previous page, with the same filters",
    },
  }) as const;

const activityQuery = {
  type: "object",
  additionalProperties: false,
  properties: {
    type: { type: "string", minLength: 1, maxLength: 64, description: "one event type, e.g. login" },
    result: { type: "string", minLength: 1, maxLength: 64, description: "one result: ok or a refusal's error code" },
    outcome: { enum: ["ok", "refused"], description: "refused: every result but ok" },
    sbj: { type: "string", minLength: 1, maxLength: 256, description: "one account's sub (or an application's id)" },
    cId: { type: "string", minLength: 1, maxLength: 256, description: "the application the events came through" },
    ...pageParams("audit.retentionDays", 64),
  },
} as const;

const identityEventQuery = {
  type: "object",
  additionalProperties: false,
  properties: {
    type: { enum: EVENT_TYPES.map(fullType), description: "one CloudEvents type (docs/events.md)" },
    subject: {
      type: "string",
      minLength: 1,
      maxLength: 300,
      description: "one subject: an account's sub, `grps|<id>|<profile>` or `its|<id>`",
    },
    ...pageParams("audit.identityEventDays", 600),
  },
} as const;

/** A page of a listing: its events, and `next` while older ones may follow. */
const pageOf = <Item extends object>(item: Item) =>
  ({
    type: "object",
    required: ["events"],
    properties: {
      events: { type: "array", items: item },
      next: { type: "string", description: "present while older events may follow: pass it as `cursor`" },
    },
  }) as const;

const identityEventPage = pageOf({
  type: "object",
  required: ["id", "type", "time", "subject", "data"],
  properties: {
    id: { type: "string", description: "the CloudEvent's id" },
    type: { type: "string", description: "svc.identity.<type>" },
    time: { type: "string", description: "when the change was committed, RFC 3339" },
    subject: { type: "string" },
    data: { type: "object", description: "the event's data as published (docs/events.md)" },
  },
} as const);

const activityPage = pageOf({
  type: "object",
  required: [...eventList.items.required, "id"],
  properties: {
    ...eventList.items.properties,
    id: { type: "string", description: "unique with ts" },
    sbjType: { const: "its", description: "present when sbj is an application (a change to its registration)" },
  },
} as const);

const summaryQuery = {
  type: "object",
  additionalProperties: false,
  properties: {
    hours: {
      type: "string",
      pattern: "^([1-9]|[1-6][0-9]|7[0-2])$",
      description: `hours counted back from the current one, 1-${ACTIVITY_LIMITS.maxHours} (default ${ACTIVITY_LIMITS.defaultHours})`,
    },
  },
} as const;

const counts = {
  signIns: { type: "integer", description: "login events with result ok" },
  failedSignIns: { type: "integer", description: "login events with any other result" },
  throttled: {
    type: "integer",
    description:
      "refused sign-ins that put an account or address under a brute-force limit (a wait, an hourly cap, the stop)",
  },
  registrations: { type: "integer", description: "accounts created by registration" },
} as const;

const summaryView = {
  type: "object",
  required: ["hours", "totals"],
  properties: {
    hours: {
      type: "array",
      description: "oldest first; the last is the current, unfinished hour",
      items: {
        type: "object",
        required: ["start", ...Object.keys(counts)],
        properties: { start: { type: "integer", description: "the hour's first ms since the epoch" }, ...counts },
      },
    },
    totals: { type: "object", required: Object.keys(counts), properties: counts },
  },
} as const;

/** Shared by both calls: v3, system mode, the permission that reads accounts' audit trails. */
const activityCall = {
  version: "v3",
  auth: "bearer",
  tags: ["audit"],
  permissions: { system: ["svc_api_sys_uaud"] },
} as const;

const numberOf = (value: string | undefined) => (value === undefined ? undefined : Number(value));

/** A listing's query with its paging numbers as numbers; the filters pass as they are. */
function pageQuery<Q extends { from?: string; to?: string; limit?: string }>(query: Q) {
  const { from, to, limit, ...filter } = query;
  return { ...filter, from: numberOf(from), to: numberOf(to), limit: numberOf(limit) };
}

/** A page of a listing, in each of the listing routes' one shape. */
const pageResponses = (schema: typeof activityPage | typeof identityEventPage) =>
  ({
    200: { description: "A page of events; `next` while older ones may follow", schema },
    400: { description: "wrong_value (cursor), input_error", schema: v3Error },
    401: badAccessToken,
  }) as const;

const listRoute = (activity: ActivityUseCases) =>
  route({
    id: "activity.events",
    method: "GET",
    path: "/svc/admin/api/v3/security-events",
    ...activityCall,
    summary: "Every account's security events, newest first, a page at a time (interface §4.18)",
    description:
      "Read from the index of events by hour (eventually consistent: an event a moment old may be missing). Events recorded before the index existed are not listed; GET /svc/api/v3/users/{subjectId}/audit still has them. A page reads a bounded stretch of hours and may hold fewer than `limit` while `next` is present.",
    request: { query: activityQuery },
    responses: pageResponses(activityPage),
    handler: async (call) => jsonResult(200, await activity.list(pageQuery(call.query))),
  });

const summaryRoute = (activity: ActivityUseCases) =>
  route({
    id: "activity.summary",
    method: "GET",
    path: "/svc/admin/api/v3/security-events/summary",
    ...activityCall,
    summary: "Sign-ins, failed sign-ins and registrations per hour (interface §4.18)",
    description:
      "Counted from the recorded events: one Query per index shard and hour, a few hours at a time. `throttled` counts the refused sign-ins that put an account or address under a brute-force limit; the guesses refused after that write nothing (the SignInThrottled metric counts them, docs/operations.md).",
    request: { query: summaryQuery },
    responses: {
      200: { description: "Counts per hour and in total", schema: summaryView },
      400: { description: "input_error", schema: v3Error },
      401: badAccessToken,
    },
    handler: async (call) =>
      jsonResult(200, await activity.summary(numberOf(call.query.hours) ?? ACTIVITY_LIMITS.defaultHours)),
  });

const identityEventsRoute = (activity: ActivityUseCases) =>
  route({
    id: "activity.identityEvents",
    method: "GET",
    path: "/svc/admin/api/v3/identity-events",
    ...activityCall,
    summary: "The identity events the event stream published, newest first, a page at a time (interface §4.18)",
    description:
      "Kept audit.identityEventDays (7 by default; 0 keeps none) by the events function once the bus (or the local events file) accepted them, so an event appears a moment after its change. A page reads a bounded stretch of hours and may hold fewer than `limit` while `next` is present.",
    request: { query: identityEventQuery },
    responses: pageResponses(identityEventPage),
    handler: async (call) => jsonResult(200, await activity.identityEvents(pageQuery(call.query))),
  });

export const activityRoutes = (activity: ActivityUseCases) =>
  group("audit", [listRoute(activity), summaryRoute(activity), identityEventsRoute(activity)]);
