import type { MiddlewareObj } from "@middy/core";
import type { APIGatewayProxyEventV2 } from "aws-lambda";
import type { CallerChecks } from "../../domain/callers/caller-checks";
import type { SvcContext } from "../request-state";

/**
 * A cold container must read the signing keys before it can check a bearer token.
 * Starting that read as soon as the route is known lets it travel while the headers,
 * the body and the input are processed, instead of after them. It never answers: the
 * authentication middleware awaits the same read, and a failed one is tried again there.
 */
export function keyWarmUp(
  checks: Pick<CallerChecks, "warmKeys">,
): MiddlewareObj<APIGatewayProxyEventV2, unknown, Error, SvcContext> {
  return {
    before: (request) => {
      const auth = request.context.svc?.route?.auth;
      const acceptsBearer = auth !== undefined && auth !== "client" && auth !== "none";
      // API Gateway (HTTP API) and the local gateway hand headers over in lower case.
      if (acceptsBearer && /^bearer /i.test(request.event.headers?.authorization ?? "")) checks.warmKeys();
    },
  };
}
