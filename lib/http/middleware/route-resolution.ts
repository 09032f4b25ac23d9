import { randomUUID } from "node:crypto";
import type { MiddlewareObj } from "@middy/core";
import type { APIGatewayProxyEventV2 } from "aws-lambda";
import { problems } from "../../domain/errors";
import { routeByKey } from "../../routes";
import type { SvcContext } from "../request-state";
import { matchRoute } from "../route-matcher";

/**
 * Finds the route of the table the gateway matched (`routeKey`). Requests that reach a
 * function through the `$default` route, or a key we do not serve, get 404 or 405.
 */
export function routeResolution(): MiddlewareObj<APIGatewayProxyEventV2, unknown, Error, SvcContext> {
  return {
    before: async (request) => {
      const { event } = request;
      request.context.svc = {
        requestId: event.requestContext?.requestId || request.context.awsRequestId || randomUUID(),
        params: {},
        query: {},
      };
      const route = routeByKey(event.routeKey);
      if (route) {
        request.context.svc.route = route;
        request.context.svc.params = { ...(event.pathParameters as Record<string, string>) };
        request.context.svc.query = { ...(event.queryStringParameters as Record<string, string>) };
        return;
      }
      const method = event.requestContext?.http?.method ?? "GET";
      const match = matchRoute(method, event.rawPath ?? "");
      if (match.kind === "wrong-method") throw problems.methodNotAllowed(method, match.allowed);
      throw problems.notFound(event.rawPath ?? "");
    },
  };
}
