import type { MiddlewareObj } from "@middy/core";
import type { APIGatewayProxyEventV2 } from "aws-lambda";
import type { SecurityEvent } from "../../domain/audit/security-event";
import type { CallerChecks } from "../../domain/callers/caller-checks";
import { ApiError } from "../../domain/errors";
import { OPERATOR_CONSOLE_CLIENT } from "../../domain/operators/console-client";
import { log } from "../../log";
import type { Operator } from "../principal";
import type { SvcContext } from "../request-state";
import type { ApiCall } from "../route";
import { sourceIpOf } from "../source-ip";

/**
 * The security event of a successful user-mode call, for a route that writes it in its
 * own transaction (`event.inTransaction`): the same fields this middleware records.
 * Undefined in system mode, which records none.
 */
export function userCallEvent(
  call: Pick<ApiCall, "principal" | "route" | "sourceIp" | "userAgent"> & { subject?: string },
): SecurityEvent | undefined {
  const { principal, route } = call;
  if (principal?.mode !== "user") return undefined;
  return {
    sbj: call.subject ?? (principal.sub as string),
    ts: Date.now(),
    type: route.event?.type ?? route.id,
    cId: principal.clientId ?? "user",
    ip: call.sourceIp,
    ua: call.userAgent,
    ...(principal.via === "bearer" && { sid: principal.sid }),
    result: "ok",
    prms: { route: route.id },
  };
}

/**
 * interface §6: every user-mode call records a security event with the user's address and
 * User-Agent, whether it succeeded or was refused. Routes that write anyway record a
 * success in their own transaction (`event.inTransaction`), so only their refusals
 * are recorded here.
 */
/** Path parameters that carry a bearer value rather than naming something: never recorded. */
const BEARER_PARAMS = new Set(["qrCode", "context"]);

/**
 * An operator's call, in the operator's own trail: who (the operator's account and session),
 * what (the route), on whom (the account or the ids the path names), from where.
 */
function operatorEvent(state: SvcContext["svc"], operator: Operator, event: APIGatewayProxyEventV2, result: string) {
  const route = state.route as NonNullable<typeof state.route>;
  const named = namedInPath(state);
  return {
    sbj: operator.sub,
    ts: Date.now(),
    type: route.event?.type ?? route.id,
    cId: OPERATOR_CONSOLE_CLIENT,
    ip: sourceIpOf(event),
    ua: event.headers?.["user-agent"],
    sid: operator.sid,
    result,
    prms: {
      route: route.id,
      operator: operator.role ?? "none",
      ...(state.subject !== undefined && { target: state.subject }),
      ...(named.length > 0 && { on: named }),
    },
  } satisfies SecurityEvent;
}

/** What the path names (`orgId=acme`), so a trail shows what a call reached for, refused or not. */
function namedInPath(state: SvcContext["svc"], except?: string): string[] {
  return Object.entries(state.params)
    .filter(([name]) => !BEARER_PARAMS.has(name) && name !== except)
    .map(([name, value]) => `${name}=${value}`);
}

/** The call's own outcome stands; a lost event is logged, not turned into a failure. */
async function recordSafely(route: string, write: () => Promise<unknown>) {
  try {
    await write();
  } catch (error) {
    log.error("security event not recorded", { route, error });
  }
}

export function securityEvent(
  checks: Pick<CallerChecks, "recordCall">,
): MiddlewareObj<APIGatewayProxyEventV2, unknown, Error, SvcContext> {
  const record = async (request: { event: APIGatewayProxyEventV2; context: SvcContext }, result: string) => {
    // No state when the request was never resolved (an invocation that is not an HTTP event).
    const { route, principal, subject } = request.context.svc ?? {};
    if (route && principal?.mode === "system" && principal.operator) {
      if (result === "ok" && route.method === "GET") return;
      return recordSafely(route.id, () =>
        checks.recordCall(operatorEvent(request.context.svc, principal.operator as Operator, request.event, result)),
      );
    }
    if (!route || principal?.mode !== "user" || (route.event?.inTransaction && result === "ok")) return;
    const headers = request.event.headers ?? {};
    // A user acts only on its own account, so a path naming another one was refused: the
    // attempt goes into the caller's trail, never the target's.
    const target = subject !== undefined && subject !== principal.sub ? subject : undefined;
    // The account is in sbj or target already; the rest (an organization, a group) is not.
    const named = namedInPath(request.context.svc, "subjectId");
    await recordSafely(route.id, () =>
      checks.recordCall({
        sbj: principal.sub,
        ts: Date.now(),
        type: route.event?.type ?? route.id,
        cId: principal.clientId ?? "user",
        ip: sourceIpOf(request.event),
        ua: headers["user-agent"],
        ...(principal.via === "bearer" && { sid: principal.sid }),
        result,
        prms: { route: route.id, ...(target !== undefined && { target }), ...(named.length > 0 && { on: named }) },
      }),
    );
  };
  return {
    after: async (request) => record(request, "ok"),
    onError: async (request) => {
      await record(request, request.error instanceof ApiError ? request.error.error : "error");
    },
  };
}
