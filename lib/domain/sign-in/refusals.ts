import type { SecurityEventLog } from "../audit/ports";
import { SIGN_IN_EVENT } from "../audit/security-event";
import type { EngagedLimit } from "../login/brute-force";
import { type MetricsPort, noMetrics } from "../metrics";

/**
 * A sign-in the user did not get, by any method: counted, and recorded as a login event of
 * the account, with the limit it engaged (the activity dashboard counts those).
 */
export async function recordRefusedSignIn(
  deps: { events: Pick<SecurityEventLog, "record">; metrics?: MetricsPort },
  sub: string,
  login: { clientId: string; method: string; ip?: string; userAgent?: string },
  now: number,
  result: string,
  limit?: EngagedLimit,
): Promise<void> {
  countSignIn(deps, login.method, result);
  await deps.events.record({
    sbj: sub,
    ts: now * 1000,
    type: SIGN_IN_EVENT,
    cId: login.clientId,
    ip: login.ip,
    ua: login.userAgent,
    result,
    prms: { method: login.method, ...(limit && { limit }) },
  });
}

/** Results that are guesses refused: a spike of them is the credential-stuffing signal alarmed on. */
const FAILED_SIGN_INS = new Set(["invalid_credential", "otp_invalid", "throttled"]);

/** Counted beside each login event (and the refusals that record none), by method and result. */
export function countSignIn(deps: { metrics?: MetricsPort }, method: string, result: string): void {
  const metrics = deps.metrics ?? noMetrics;
  metrics.count("SignIn", { method, result });
  if (FAILED_SIGN_INS.has(result)) metrics.count("SignInFailed");
  if (result === "throttled") metrics.count("SignInThrottled", { method });
}
