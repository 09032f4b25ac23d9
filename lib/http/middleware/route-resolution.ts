import type { MiddlewareObj } from "@middy/core";
import type { APIGatewayProxyEventV2 } from "aws-lambda";
import { problems } from "../../domain/errors";
import { requestIdOf } from "../request-id";
import type { ServedRoute, SvcContext } from "../request-state";
import { type RouteShape, routeKey } from "../route";
import { createRouteMatcher } from "../route-matcher";

/**
 * Finds the function's route the gateway matched (`routeKey`). Requests that reach a
 * function through the `$default` route, or a key we do not serve, get 404 or 405: 405
 * when a route of `known` has the path with other methods.
 */
export function routeResolution(
  served: readonly ServedRoute[],
  known: readonly RouteShape[] = served,
): MiddlewareObj<APIGatewayProxyEventV2, unknown, Error, SvcContext> {
  const byKey = new Map(served.map((route) => [routeKey(route), route]));
  const matchRoute = createRouteMatcher(known);
  return {
    before: async (request) => {
      const { event } = request;
      request.context.svc = {
        requestId: requestIdOf(event, request.context),
        params: {},
        query: {},
      };
      const route = byKey.get(event.routeKey);
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
