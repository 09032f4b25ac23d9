import type { MiddlewareObj } from "@middy/core";
import type { APIGatewayProxyEventV2 } from "aws-lambda";
import { problems } from "../../domain/errors";
import type { SvcContext } from "../request-state";

/**
 * After the credential steps: a route that needs a caller and found none says why, a
 * missing Authorization header or a scheme this route does not take.
 */
export function callerRequired(): MiddlewareObj<APIGatewayProxyEventV2, unknown, Error, SvcContext> {
  return {
    before: async (request) => {
      const state = request.context.svc;
      const auth = state.route?.auth;
      if (state.principal || state.scimOrg || auth === undefined || auth === "client" || auth === "none") return;
      if (!request.event.headers?.authorization) throw problems.badAccessToken("missing_access_token", {});
      throw problems.badAccessToken("unsupported_authorization_scheme");
    },
  };
}
