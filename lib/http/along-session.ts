import type { ReadPlan } from "../domain/unit-of-work";

/** What is known of a user-mode call when its session is checked, before the route runs. */
export interface SessionCaller {
  /** The token's subject: the caller. */
  sub: string;
  params: Record<string, string>;
  sourceIp?: string;
  now: number;
}

/**
 * A route's read that cannot ride in a BatchGetItem (a Query of the caller's own items):
 * sent at the same moment as the session check instead of after it. Still two reads, but
 * one wait. Its result reaches the route only once the session is confirmed; when the
 * check refuses, the read is awaited and dropped, so no read outlives the answer.
 */
export interface BesideRead {
  beside: () => Promise<unknown>;
}

/**
 * A route's next read, planned before the session check: keys that ride in the check's
 * BatchGetItem (one read instead of two; issue 8: reads at most 2 in user mode), or a
 * read sent beside it. The route finds what was read in `ApiCall.alongSession`, and must
 * check it is for the account it acts on: the plan is made before authorization, from the
 * verified token's subject.
 */
export type AlongSession = (caller: SessionCaller) => ReadPlan<unknown> | BesideRead | undefined;

/** What is known of a system call when its first read is planned: validated input only. */
export interface SystemCaller {
  params: Record<string, string>;
  /** The account the path names (as authorization will read it), if any. */
  subject?: string;
  query: Record<string, string>;
  body: unknown;
  sourceIp?: string;
  now: number;
}

/**
 * A system call's first read, sent beside the signing keys' read when the container must
 * make that read (cold, then once a minute), instead of after it. Planned from the
 * validated input before the token's signature is checked: the route finds the result in
 * `ApiCall.alongSession` only once the token is verified, and must check it answers the
 * read it would make (the same account, the same keys).
 */
export type AlongKeys = (caller: SystemCaller) => BesideRead | undefined;

/** An AlongKeys result with what it was read for. */
interface ReadFor<T> {
  readFor: string;
  value: T;
}

/**
 * An AlongKeys read tagged with what it answers (`tag`: the account, say, or the account
 * and the query), so the route can tell it is the read it would make (`readMadeFor`).
 */
export function besideKeysFor<T>(tag: string, read: () => Promise<T>): BesideRead {
  return { beside: async (): Promise<ReadFor<T>> => ({ readFor: tag, value: await read() }) };
}

/** What an AlongKeys read made for `tag` found; undefined when none was made for it. */
export function readMadeFor<T>(alongSession: unknown, tag: string | undefined): { value: T } | undefined {
  const read = alongSession as ReadFor<T> | undefined;
  return tag !== undefined && read?.readFor === tag ? { value: read.value } : undefined;
}
