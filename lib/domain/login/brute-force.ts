/**
 * Brute-force protection for password logins, counted in DynamoDB so every container
 * sees the same numbers. After FREE_FAILURES consecutive failures an account waits
 * WAIT_STEP seconds more per further failure, never more than MAX_WAIT: a stranger can
 * delay a real user by at most 15 minutes at a time. Independently no account takes
 * more than HOURLY_CAP failures an hour (ASVS 2.2.1), and no address more than
 * IP_HOURLY_CAP. At CONSECUTIVE_CAP consecutive failures password sign-in stops (NIST
 * SP 800-63B-4 allows at most 100) until a day passes without one, the password is reset,
 * or the user signs in another way. During a wait the password is not even checked.
 */
export const BRUTE_FORCE = {
  FREE_FAILURES: 30,
  WAIT_STEP: 60,
  MAX_WAIT: 900,
  HOURLY_CAP: 100,
  IP_HOURLY_CAP: 300,
  CONSECUTIVE_CAP: 100,
} as const;

export function hourOf(now: number): number {
  return Math.floor(now / 3600);
}

/** Seconds to wait after `consecutive` failures; 0 while they are still free. */
export function waitAfter(consecutive: number): number {
  if (consecutive < BRUTE_FORCE.FREE_FAILURES) return 0;
  return Math.min(BRUTE_FORCE.WAIT_STEP * (consecutive - BRUTE_FORCE.FREE_FAILURES + 1), BRUTE_FORCE.MAX_WAIT);
}

export interface FailureCounters {
  consecutive: number;
  waitUntil?: number;
  hourly: number;
  ipHourly: number;
}

/**
 * The one answer to a guess the limits refuse, whichever limit it was: an account that
 * exists and a name that does not are counted alike, and must read alike too.
 */
export const THROTTLED = "too many failed logins; try again later";

/** Whether the counters already read refuse a guess, so it need not even take an attempt. */
export function refusedBeforeCheck(counters: FailureCounters, now: number): boolean {
  return (
    counters.ipHourly >= BRUTE_FORCE.IP_HOURLY_CAP ||
    counters.hourly >= BRUTE_FORCE.HOURLY_CAP ||
    counters.consecutive >= BRUTE_FORCE.CONSECUTIVE_CAP ||
    (counters.waitUntil !== undefined && counters.waitUntil > now)
  );
}

/**
 * What a guess asks of the store before its password is judged: one attempt under every
 * limit at once. Consecutive failures past the free ones take the attempt only when no
 * wait runs, and put up the longest wait until the guess is judged, so guesses sent
 * together cannot all pass.
 */
export interface AttemptClaim {
  /** An account's counters, or those of a login name that names no account. */
  counted: { sub: string } | { login: string };
  /** The addresses the guess counts against (the connection's, and one an application vouches for). */
  addresses: string[];
  now: number;
  hour: number;
  /** The consecutive count the snapshot read: which form of the take to try first. */
  seenConsecutive: number;
}

export const LIMITS = {
  hourlyCap: BRUTE_FORCE.HOURLY_CAP,
  addressCap: BRUTE_FORCE.IP_HOURLY_CAP,
  /** Consecutive counts below this take an attempt freely: the failure it may become still costs no wait. */
  freeBelow: BRUTE_FORCE.FREE_FAILURES - 1,
  pendingWait: BRUTE_FORCE.MAX_WAIT,
  consecutiveCap: BRUTE_FORCE.CONSECUTIVE_CAP,
} as const;

/**
 * The limit a failure put its account or address under, if any: recorded on that failure's
 * event, so operators see throttling begin without a write per refused guess (as Auth0
 * logs a block once). `before` are the counters read ahead of the attempt, when known.
 */
export type EngagedLimit = "wait" | "stop" | "account_hour" | "address_hour";

export function limitEngaged(consecutive: number, before?: FailureCounters): EngagedLimit | undefined {
  if (consecutive >= BRUTE_FORCE.CONSECUTIVE_CAP) return "stop";
  if (before && before.ipHourly + 1 >= BRUTE_FORCE.IP_HOURLY_CAP) return "address_hour";
  if (before && before.hourly + 1 >= BRUTE_FORCE.HOURLY_CAP) return "account_hour";
  if (waitAfter(consecutive) > 0) return "wait";
  return undefined;
}
