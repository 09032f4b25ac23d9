import type { MiddlewareObj } from "@middy/core";
import type { APIGatewayProxyEventV2 } from "aws-lambda";
import { ApiError } from "../../domain/errors";
import { services } from "../../services";
import { log } from "../logger";
import type { SvcContext } from "../request-state";
import { sourceIpOf } from "../source-ip";

/**
 * SPEC 6: every user-mode call records a security event with the user's address and
 * User-Agent, whether it succeeded or was refused. Routes that write anyway record it
 * in their own transaction (`event.inTransaction`) and are skipped here.
 */
export function securityEvent(): MiddlewareObj<APIGatewayProxyEventV2, unknown, Error, SvcContext> {
  const record = async (request: { event: APIGatewayProxyEventV2; context: SvcContext }, result: string) => {
    const { route, principal, subject } = request.context.svc;
    if (!route || principal?.mode !== "user" || route.event?.inTransaction) return;
    const headers = request.event.headers ?? {};
    try {
      await services().events.record({
        sbj: subject ?? principal.sub,
        ts: Date.now(),
        type: route.event?.type ?? route.id,
        cId: principal.clientId ?? "user",
        ip: sourceIpOf(request.event),
        ua: headers["user-agent"],
        ...(principal.via === "bearer" && { sid: principal.sid }),
        result,
        prms: { route: route.id },
      });
    } catch (error) {
      // The call's own outcome stands; a lost event is logged, not turned into a failure.
      log.error("security event not recorded", { route: route.id, error });
    }
  };
  return {
    after: async (request) => record(request, "ok"),
    onError: async (request) => {
      await record(request, request.error instanceof ApiError ? request.error.error : "error");
    },
  };
}
