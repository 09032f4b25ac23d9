import type { MiddlewareObj } from "@middy/core";
import type { APIGatewayProxyEventV2 } from "aws-lambda";
import type { CallerChecks } from "../../domain/callers/caller-checks";
import type { SvcContext } from "../request-state";

/** A SCIM route's caller: the organization whose SCIM token this is (docs/scim.md). */
export function scimToken(
  checks: Pick<CallerChecks, "scimOrganization">,
): MiddlewareObj<APIGatewayProxyEventV2, unknown, Error, SvcContext> {
  return {
    before: async (request) => {
      const state = request.context.svc;
      if (state.route?.auth !== "scim-bearer") return;
      const presented = /^Bearer\s+(\S+)\s*$/i.exec(request.event.headers?.authorization ?? "");
      // No token: the caller-required step says so in the route's shape.
      if (!presented) return;
      state.scimOrg = await checks.scimOrganization(presented[1]);
    },
  };
}
