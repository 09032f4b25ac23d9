/**
 * Brute-force protection for password logins, counted in DynamoDB so every container
 * sees the same numbers. After FREE_FAILURES consecutive failures an account waits
 * WAIT_STEP seconds more per further failure, never more than MAX_WAIT: a stranger can
 * delay a real user by at most 15 minutes at a time. Independently no account takes
 * more than HOURLY_CAP failures an hour (ASVS 2.2.1), and no address more than
 * IP_HOURLY_CAP. During a wait the password is not even checked.
 */
export const BRUTE_FORCE = {
  FREE_FAILURES: 30,
  WAIT_STEP: 60,
  MAX_WAIT: 900,
  HOURLY_CAP: 100,
  IP_HOURLY_CAP: 300,
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

/** Why a login may not even be tried now, or undefined. */
export function refusalBeforeCheck(counters: FailureCounters, now: number): string | undefined {
  if (counters.ipHourly >= BRUTE_FORCE.IP_HOURLY_CAP)
    return "too many failed logins from this address; try again later";
  if (counters.hourly >= BRUTE_FORCE.HOURLY_CAP)
    return "too many failed logins for this account; try again in the next hour";
  if (counters.waitUntil !== undefined && counters.waitUntil > now) {
    return `too many failed logins for this account; try again in ${counters.waitUntil - now} s`;
  }
  return undefined;
}
