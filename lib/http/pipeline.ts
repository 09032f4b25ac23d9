import middy from "@middy/core";
import httpHeaderNormalizer from "@middy/http-header-normalizer";
import type { APIGatewayProxyEventV2, Context } from "aws-lambda";
import { config } from "../config";
import type { CallerChecks } from "../domain/callers/caller-checks";
import { withLogContext } from "../log";
import { applicationPassword } from "./middleware/application-password";
import { authorization } from "./middleware/authorization";
import { bearerToken } from "./middleware/bearer-token";
import { bodyParsing } from "./middleware/body-parsing";
import { callerRequired } from "./middleware/caller-required";
import { errorShaper } from "./middleware/error-shaper";
import { keyWarmUp } from "./middleware/key-warm-up";
import { requestMetrics } from "./middleware/metrics";
import { operatorAuthority } from "./middleware/operator-authority";
import { routeResolution } from "./middleware/route-resolution";
import { scimToken } from "./middleware/scim-token";
import { securityEvent } from "./middleware/security-event";
import { sessionLiveness } from "./middleware/session-liveness";
import { userPassword } from "./middleware/user-password";
import { validation } from "./middleware/validation";
import { publicUrl } from "./public-url";
import { requestIdOf } from "./request-id";
import type { RouteValidators, ServedRoute, SvcContext } from "./request-state";
import { resourceMetadataUrl } from "./resource-metadata";
import type { ApiCall, FunctionName, HttpResult, RouteDefinition, RouteShape } from "./route";
import { connectionIpOf, sourceIpOf } from "./source-ip";

function languageOf(route: ServedRoute, acceptLanguage: string | undefined): "ru" | "en" {
  if (
    (route.version === "v3" || route.version === "reg" || route.version === "page") &&
    acceptLanguage &&
    /^\s*en\b/i.test(acceptLanguage)
  )
    return "en";
  return config().settings.defaultLanguage;
}

/** API Gateway hands cookies over as `name=value` strings; the first of a name wins. */
function cookiesOf(list: readonly string[] | undefined): Record<string, string> {
  const cookies: Record<string, string> = {};
  for (const entry of list ?? []) {
    const eq = entry.indexOf("=");
    if (eq <= 0) continue;
    const name = entry.slice(0, eq).trim();
    if (!(name in cookies)) cookies[name] = entry.slice(eq + 1).trim();
  }
  return cookies;
}

/**
 * Builds the Lambda handler of one endpoint group from its routes (lib/routes/<fn>.ts, handed
 * their use cases by functions/<fn>.ts), their compiled validators (lib/compiled/<fn>-validators.ts)
 * and the caller checks the middlewares ask. A route without validators or validators without a
 * route fail at load, so the two cannot drift apart.
 */
export function createApiFunction(
  fn: FunctionName,
  routes: readonly RouteDefinition[],
  validators: Readonly<Record<string, RouteValidators>>,
  checks: CallerChecks,
  /** For the function that answers `$default`: every route, so an unmatched call gets 405 rather than 404. */
  known?: readonly RouteShape[],
) {
  const ids = routes.map((r) => r.id);
  const unvalidated = ids.filter((id) => !validators[id]);
  const unknown = Object.keys(validators).filter((id) => !ids.includes(id));
  if (unvalidated.length > 0 || unknown.length > 0) {
    throw new Error(
      `function ${fn}: routes without validators [${unvalidated}], validators without route [${unknown}]`,
    );
  }
  const served: ServedRoute[] = routes.map((r) => ({ ...r, validate: validators[r.id] }));

  const dispatch = async (event: APIGatewayProxyEventV2, context: Context): Promise<HttpResult> => {
    const state = (context as SvcContext).svc;
    const route = state.route as ServedRoute;
    const headers = event.headers ?? {};
    const call: ApiCall<ServedRoute["request"], ServedRoute["subject"], unknown> = {
      route,
      requestId: state.requestId,
      params: state.params,
      query: state.query,
      body: (event as { body?: unknown }).body as never,
      headers,
      principal: state.principal,
      scimOrg: state.scimOrg,
      subject: state.subject,
      account: state.account,
      prefetched: state.prefetched,
      language: languageOf(route, headers["accept-language"]),
      cookies: cookiesOf(event.cookies),
      sourceIp: sourceIpOf(event),
      connectionIp: connectionIpOf(event),
      userAgent: headers["user-agent"],
    };
    const result = await route.handler(call);
    result.headers = { ...result.headers, "x-request-id": state.requestId };
    return result;
  };

  // Order matters: middy runs after and onError in reverse. Metrics outermost, so they see the
  // final status; the error shaper next, so its onError shapes whatever any other one left.
  const handler = middy<APIGatewayProxyEventV2, HttpResult, Error, SvcContext>()
    .use(requestMetrics(fn))
    .use(errorShaper(() => resourceMetadataUrl(config().issuer)))
    .use(routeResolution(served, known ?? served))
    .use(keyWarmUp(checks))
    .use(httpHeaderNormalizer())
    .use(bodyParsing())
    .use(validation())
    .use(bearerToken(checks, (path) => publicUrl(config().issuer, path)))
    .use(applicationPassword(checks))
    .use(userPassword(checks))
    .use(scimToken(checks))
    .use(callerRequired())
    .use(sessionLiveness(checks))
    .use(operatorAuthority(checks))
    .use(authorization())
    .use(securityEvent(checks))
    .handler(dispatch);

  return (event: APIGatewayProxyEventV2, context: Context) =>
    withLogContext({ requestId: requestIdOf(event, context), function: fn }, () =>
      handler(event, context as SvcContext),
    );
}
