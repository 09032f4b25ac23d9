import type { MiddlewareObj } from "@middy/core";
import type { APIGatewayProxyEventV2 } from "aws-lambda";
import type { CallerChecks } from "../../domain/callers/caller-checks";
import { OPERATOR_PERMISSIONS, operatorMayCall } from "../../domain/operators/operator";
import type { SvcContext } from "../request-state";

/**
 * An admin console token gets its authority here, call by call: a live session, a right
 * held now (APP_ADMIN or SYS_MON over the console), then what that role may do with this
 * route (docs/decisions/operator-authority.md).
 */
export function operatorAuthority(
  checks: Pick<CallerChecks, "liveOperator">,
): MiddlewareObj<APIGatewayProxyEventV2, unknown, Error, SvcContext> {
  return {
    before: async (request) => {
      const state = request.context.svc;
      const principal = state.principal;
      if (principal?.mode !== "system" || !principal.operator || !state.route) return;
      const now = Math.floor(Date.now() / 1000);
      const standing = await checks.liveOperator(principal.operator.sub, principal.operator.sid, now);
      Object.assign(principal.operator, standing);
      principal.scopes = new Set(OPERATOR_PERMISSIONS);
      operatorMayCall(standing, state.route, now);
    },
  };
}
