import type { MiddlewareObj } from "@middy/core";
import type { APIGatewayProxyEventV2 } from "aws-lambda";
import { errorResult, versionOfPath } from "../error-body";
import type { SvcContext } from "../request-state";

/**
 * Registered first so that its onError runs last: whatever failed, the caller gets the
 * body shape of the route's version (interface §7) and never a stack trace.
 */
export function errorShaper(
  /** The management API's RFC 9728 metadata URL, for the Bearer challenges. */
  resourceMetadata: () => string | undefined,
): MiddlewareObj<APIGatewayProxyEventV2, unknown, Error, SvcContext> {
  return {
    onError: async (request) => {
      const state = request.context?.svc;
      const version = state?.route?.version ?? versionOfPath(request.event?.rawPath ?? "");
      const requestId = state?.requestId ?? request.event?.requestContext?.requestId ?? "unknown";
      request.response = errorResult(request.error, version, requestId, resourceMetadata());
    },
  };
}
