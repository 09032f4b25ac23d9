import { problems } from "../errors";
import type { EventFilter, EventPosition, EventTally, ListedEvent, SecurityEventIndex } from "./ports";
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
  clock?: () => number;
}

export interface ActivityQuery extends EventFilter {
  from?: number;
  to?: number;
  limit?: number;
  cursor?: string;
}

export interface HourCounts {
  /** The hour's first millisecond. */
  start: number;
  signIns: number;
  failedSignIns: number;
  registrations: number;
}

/** The opaque cursor: the position of the last event answered, base64url. */
const encodeCursor = (at: EventPosition): string => Buffer.from(`${at.ts}.${at.id}`).toString("base64url");

function decodeCursor(cursor: string): EventPosition {
  const match = /^(\d{1,15})\.([A-Za-z0-9_-]{0,16})$/.exec(Buffer.from(cursor, "base64url").toString("latin1"));
  if (!match) throw problems.wrongValue("cursor", "not a cursor this listing answered; start again without one");
  return { ts: Number(match[1]), id: match[2] };
}

function countsOf(start: number, tallies: EventTally[]): HourCounts {
  const counts: HourCounts = { start, signIns: 0, failedSignIns: 0, registrations: 0 };
  for (const { type, result, count } of tallies) {
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
      const now = clock();
      // Events past their retention may wait for TTL a while; they are not shown.
      const from = Math.max(
        query.from ?? now - ACTIVITY_LIMITS.defaultWindowHours * HOUR_MS,
        now - deps.retentionDays * 86_400_000,
      );
      const to = query.to ?? now + 60_000;
      const before = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
      if (from > to) return { events: [] };
      const { type, result, outcome, sbj, cId } = query;
      const page = await deps.index.page(
        { type, result, outcome, sbj, cId },
        from,
        to,
        before,
        query.limit ?? ACTIVITY_LIMITS.defaultLimit,
      );
      return { events: page.events, ...(page.next && { next: encodeCursor(page.next) }) };
    },

    /**
     * Sign-ins (successful and refused) and registrations per hour over the last `hours`
     * hours, the current one last, counted from their recorded events: a Query per index
     * shard and hour, a few hours at a time. Guesses the brute-force limits refuse record no
     * event (a flood must not write), so they are not here: the SignInThrottled metric counts them.
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
      const totals = { signIns: 0, failedSignIns: 0, registrations: 0 };
      for (const hour of counted) {
        totals.signIns += hour.signIns;
        totals.failedSignIns += hour.failedSignIns;
        totals.registrations += hour.registrations;
      }
      return { hours: counted, totals };
    },
  };
}
