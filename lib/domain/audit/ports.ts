import type { PendingWrite } from "../unit-of-work";
import type { SecurityEvent } from "./security-event";

export interface SecurityEventLog {
  /** The event as part of a commit the call makes anyway. */
  putItem(event: SecurityEvent): PendingWrite;
  record(event: SecurityEvent): Promise<void>;
  /** Events of [from, to] in ms, newest first. */
  list(sub: string, from: number, to: number, limit: number): Promise<SecurityEvent[]>;
}

/** Which events of every party a listing keeps; each part optional. */
export interface EventFilter {
  type?: string;
  /** One result: `ok` or the error code of a refusal. */
  result?: string;
  /** `refused`: every result but ok; `ok`: as result=ok. */
  outcome?: "ok" | "refused";
  sbj?: string;
  cId?: string;
}

/** Where a listing stopped: the next page holds events strictly older than this one. */
export interface EventPosition {
  ts: number;
  /** Empty: before every event of `ts` (a page that stopped at an hour's start). */
  id: string;
}

export interface ListedEvent extends SecurityEvent {
  /** The event's id, unique with its ts. */
  id: string;
}

export interface EventPage {
  events: ListedEvent[];
  /** Present while older events may follow. */
  next?: EventPosition;
}

/** How many events of one type and result an hour holds; `limited`: those that engaged a brute-force limit. */
export interface EventTally {
  type: string;
  result: string;
  limited: boolean;
  count: number;
}

/**
 * Every party's security events by time, across accounts and applications (an index that
 * may lag the writes by a moment). Events written before the index existed are not in it.
 */
export interface SecurityEventIndex {
  /**
   * Events of [from, to] in ms that `filter` keeps, newest first, older than `before`; at
   * most `limit`. A page may hold fewer and still have `next`: each reads a bounded stretch.
   */
  page(
    filter: EventFilter,
    from: number,
    to: number,
    before: EventPosition | undefined,
    limit: number,
  ): Promise<EventPage>;
  /** Events of `types` in the hour starting at `hourStart` (ms), counted by type, result and engaged limit. */
  tally(hourStart: number, types: readonly string[]): Promise<EventTally[]>;
}

/** An identity event as the event stream published it (docs/events.md), kept for operators. */
export interface KeptIdentityEvent {
  id: string;
  /** The full CloudEvents type, e.g. svc.identity.session.started. */
  type: string;
  /** RFC 3339, when the change was committed. */
  time: string;
  subject: string;
  data: Record<string, unknown>;
  /** The stream record's sequence number, when kept: it orders the events of one second. */
  sequence?: string;
}

export interface IdentityEventFilter {
  type?: string;
  subject?: string;
}

/**
 * The published identity events, kept a few days (audit.identityEventDays) by the events
 * function after it publishes them; read by time across every subject.
 */
export interface IdentityEventLog {
  keep(events: KeptIdentityEvent[]): Promise<void>;
  /** As SecurityEventIndex.page: newest first, older than `before`, at most `limit`, `next` while more may follow. */
  page(
    filter: IdentityEventFilter,
    from: number,
    to: number,
    before: EventPosition | undefined,
    limit: number,
  ): Promise<{ events: KeptIdentityEvent[]; next?: EventPosition }>;
}
