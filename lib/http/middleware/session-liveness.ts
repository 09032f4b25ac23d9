import type { MiddlewareObj } from "@middy/core";
import type { APIGatewayProxyEventV2 } from "aws-lambda";
import type { CallerChecks } from "../../domain/callers/caller-checks";
import type { SvcContext } from "../request-state";
import { sourceIpOf } from "../source-ip";

/**
 * A user token is only as alive as its session (CallerChecks.liveSession). The route's
 * `prefetch` rides in the same read, so the route's first read costs no round trip of its own.
 */
export function sessionLiveness(
  checks: Pick<CallerChecks, "liveSession">,
): MiddlewareObj<APIGatewayProxyEventV2, unknown, Error, SvcContext> {
  return {
    before: async (request) => {
      const state = request.context.svc;
      const principal = state.principal;
      if (principal?.mode !== "user" || principal.via !== "bearer") return;
      const now = Math.floor(Date.now() / 1000);
      const prefetch = state.route?.prefetch?.({
        sub: principal.sub,
        params: state.params,
        sourceIp: sourceIpOf(request.event),
        now,
      });
      const live = await checks.liveSession(principal.sub, principal.sid, prefetch, Date.now() / 1000);
      state.account = live.account;
      state.prefetched = live.prefetched;
    },
  };
}
