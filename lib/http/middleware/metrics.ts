import type { MiddlewareObj } from "@middy/core";
import type { APIGatewayProxyEventV2 } from "aws-lambda";
import { log } from "../../log";
import { publishRequest } from "../../metrics";
import type { SvcContext } from "../request-state";
import type { FunctionName, HttpResult } from "../route";

/**
 * Per route: a request count, a 5xx count and the latency, flushed as one EMF line per
 * request. Registered before the error shaper, so its after and onError run once the
 * answer is final (middy unwinds in reverse) and a shaped 500 counts as a 5xx.
 */
export function requestMetrics(fn: FunctionName): MiddlewareObj<APIGatewayProxyEventV2, HttpResult, Error, SvcContext> {
  // Keyed by the request's context: the local gateway serves requests of one function concurrently.
  const started = new WeakMap<object, number>();
  const publish = (request: { response?: HttpResult | null; context: SvcContext }) => {
    const route = request.context.svc?.route?.id ?? "unmatched";
    const began = started.get(request.context) ?? Date.now();
    try {
      // No response after every onError would be a crash, which Lambda answers with a 5xx.
      publishRequest(fn, route, request.response?.statusCode ?? 500, Date.now() - began);
    } catch (error) {
      // Metrics are an observer: their failure must not turn an answer into an error.
      log.warn("metrics not published", { error });
    }
  };
  return {
    before: (request) => {
      started.set(request.context, Date.now());
    },
    after: publish,
    onError: publish,
  };
}
