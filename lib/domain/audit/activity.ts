import { problems } from "../errors";
import type {
  EventFilter,
  EventPosition,
  EventTally,
  IdentityEventFilter,
  IdentityEventLog,
  KeptIdentityEvent,
  ListedEvent,
  SecurityEventIndex,
} from "./ports";
import { REGISTRATION_EVENT, SIGN_IN_EVENT } from "./security-event";

/**
 * Every party's security events for operators (the admin console's activity screen and
 * dashboard): a listing across accounts and hourly counts of sign-ins, both read from the
 * events the service records anyway (docs/interface.md §4.18).
 */

export const ACTIVITY_LIMITS = {
  defaultLimit: 50,
  maxLimit: 100,
  defaultHours: 24,
  maxHours: 72,
  /** Without `from`, a listing reaches this far back: every page of an empty stretch costs Queries. */
  defaultWindowHours: 24,
} as const;

const HOUR_MS = 3_600_000;
/** Hours counted at once: each is one Query per index shard, so this bounds the calls in flight. */
const HOURS_IN_FLIGHT = 4;

export interface ActivityDeps {
  index: SecurityEventIndex;
  /** audit.retentionDays: older events are gone, whether or not TTL has removed them yet. */
  retentionDays: number;
  identityEvents: IdentityEventLog;
  /** audit.identityEventDays, likewise for the kept identity events. */
  identityEventDays: number;
  clock?: () => number;
}

interface Window {
  from?: number;
  to?: number;
  limit?: number;
  cursor?: string;
}

export interface ActivityQuery extends EventFilter, Window {}

export interface IdentityEventQuery extends IdentityEventFilter, Window {}

export interface HourCounts {
  /** The hour's first millisecond. */
  start: number;
  signIns: number;
  failedSignIns: number;
  /** Refused sign-ins that put an account or address under a brute-force limit. */
  throttled: number;
  registrations: number;
}

/** The opaque cursor: the position of the last event answered, base64url. */
const encodeCursor = (at: EventPosition): string => Buffer.from(`${at.ts}.${at.id}`).toString("base64url");

/** Security events' ids are short base64url; identity events' are the stream record's id, type and key. */
const SECURITY_EVENT_ID = /^(\d{1,15})\.([A-Za-z0-9_-]{0,16})$/;
const IDENTITY_EVENT_ID = /^(\d{1,15})\.([\x21-\x7e]{0,400})$/;

function decodeCursor(cursor: string, shape: RegExp): EventPosition {
  const match = shape.exec(Buffer.from(cursor, "base64url").toString("latin1"));
  if (!match) throw problems.wrongValue("cursor", "not a cursor this listing answered; start again without one");
  return { ts: Number(match[1]), id: match[2] };
}

/**
 * The stretch a page reads: [from, to] in ms, never older than what is kept (entries past
 * it may wait for TTL a while; they are not shown), and where the cursor left off.
 */
function windowOf(query: Window, now: number, keptDays: number, idShape: RegExp) {
  const from = Math.max(query.from ?? now - ACTIVITY_LIMITS.defaultWindowHours * HOUR_MS, now - keptDays * 86_400_000);
  const to = query.to ?? now + 60_000;
  const before = query.cursor === undefined ? undefined : decodeCursor(query.cursor, idShape);
  return { from, to, before, limit: query.limit ?? ACTIVITY_LIMITS.defaultLimit };
}

function countsOf(start: number, tallies: EventTally[]): HourCounts {
  const counts: HourCounts = { start, signIns: 0, failedSignIns: 0, throttled: 0, registrations: 0 };
  for (const { type, result, limited, count } of tallies) {
    if (limited) counts.throttled += count;
    if (type === REGISTRATION_EVENT) counts.registrations += count;
    else if (type === SIGN_IN_EVENT && result === "ok") counts.signIns += count;
    else if (type === SIGN_IN_EVENT) counts.failedSignIns += count;
  }
  return counts;
}

export type ActivityUseCases = ReturnType<typeof activityUseCases>;

export function activityUseCases(deps: ActivityDeps) {
  const clock = deps.clock ?? Date.now;
  return {
    /** A page of every party's events, newest first; `next` is the cursor of the following page. */
    async list(query: ActivityQuery): Promise<{ events: ListedEvent[]; next?: string }> {
      const { from, to, before, limit } = windowOf(query, clock(), deps.retentionDays, SECURITY_EVENT_ID);
      if (from > to) return { events: [] };
      const { type, result, outcome, sbj, cId } = query;
      const page = await deps.index.page({ type, result, outcome, sbj, cId }, from, to, before, limit);
      return { events: page.events, ...(page.next && { next: encodeCursor(page.next) }) };
    },

    /** A page of the identity events the stream published and kept, newest first, as `list` pages. */
    async identityEvents(query: IdentityEventQuery): Promise<{ events: KeptIdentityEvent[]; next?: string }> {
      const { from, to, before, limit } = windowOf(query, clock(), deps.identityEventDays, IDENTITY_EVENT_ID);
      if (from > to || deps.identityEventDays === 0) return { events: [] };
      const page = await deps.identityEvents.page(
        { type: query.type, subject: query.subject },
        from,
        to,
        before,
        limit,
      );
      return { events: page.events, ...(page.next && { next: encodeCursor(page.next) }) };
    },

    /**
     * Sign-ins (successful and refused) and registrations per hour over the last `hours`
     * hours, the current one last, counted from their recorded events: a Query per index
     * shard and hour, a few hours at a time. `throttled` counts the failures that put an
     * account or address under a limit; the guesses refused after record no event (a flood
     * must not write), and the SignInThrottled metric counts those.
     */
    async summary(hours: number): Promise<{ hours: HourCounts[]; totals: Omit<HourCounts, "start"> }> {
      const current = Math.floor(clock() / HOUR_MS) * HOUR_MS;
      const starts = Array.from({ length: hours }, (_, i) => current - (hours - 1 - i) * HOUR_MS);
      const counted: HourCounts[] = [];
      for (let i = 0; i < starts.length; i += HOURS_IN_FLIGHT) {
        const batch = starts.slice(i, i + HOURS_IN_FLIGHT);
        const tallies = await Promise.all(
          batch.map((start) => deps.index.tally(start, [SIGN_IN_EVENT, REGISTRATION_EVENT])),
        );
        counted.push(...batch.map((start, j) => countsOf(start, tallies[j])));
      }
      const totals = { signIns: 0, failedSignIns: 0, throttled: 0, registrations: 0 };
      for (const hour of counted) {
        totals.signIns += hour.signIns;
        totals.failedSignIns += hour.failedSignIns;
        totals.throttled += hour.throttled;
        totals.registrations += hour.registrations;
      }
      return { hours: counted, totals };
    },
  };
}
