import type { AdminChangeEvent } from "../domain/audit/security-event";
import type { CommonCall } from "../http/route";

/**
 * The security event of an admin API change (interface §6), naming the application that
 * made it and from where; `prms` says what, never a value.
 */
export function adminChangeEvent(call: CommonCall, prms: Record<string, string[]> = {}): AdminChangeEvent {
  return {
    type: call.route.event?.type ?? call.route.id,
    cId: call.principal?.clientId ?? "unknown",
    ip: call.sourceIp,
    ua: call.userAgent,
    prms: { route: call.route.id, ...prms },
  };
}
