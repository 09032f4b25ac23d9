import type { ReadPlan } from "../store/batch";

/** What is known of a user-mode call when its session is checked, before the route runs. */
export interface SessionCaller {
  /** The token's subject: the caller. */
  sub: string;
  params: Record<string, string>;
  sourceIp?: string;
  now: number;
}

/**
 * A route's next read, planned before the session check so its keys ride in the check's
 * BatchGetItem: one read instead of two (issue 8: reads at most 2 in user mode). The route
 * finds what the plan read in `ApiCall.alongSession`, and must check it is for the
 * account it acts on: the plan is made before authorization.
 */
export type AlongSession = (caller: SessionCaller) => ReadPlan<unknown> | undefined;
