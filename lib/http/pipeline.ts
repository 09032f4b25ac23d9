import middy from "@middy/core";
import httpHeaderNormalizer from "@middy/http-header-normalizer";
import type { APIGatewayProxyEventV2, Context } from "aws-lambda";
import { config } from "../config";
import type { Account } from "../domain/accounts/account";
import type { AlongKeys, AlongSession } from "./along-session";
import type { HttpResult } from "./error-body";
import { authentication } from "./middleware/authentication";
import { authorization } from "./middleware/authorization";
import { bodyParsing } from "./middleware/body-parsing";
import { errorShaper } from "./middleware/error-shaper";
import { keyWarmUp } from "./middleware/key-warm-up";
import { routeResolution } from "./middleware/route-resolution";
import { securityEvent } from "./middleware/security-event";
import { validation } from "./middleware/validation";
import type { Principal } from "./principal";
import type { SvcContext } from "./request-state";
import type { FunctionName, RouteShape, ServedRoute } from "./route";
import { sourceIpOf } from "./source-ip";

/** What a route implementation receives: validated input and the established caller. */
export interface ApiCall<Body = unknown> {
  route: ServedRoute;
  requestId: string;
  params: Record<string, string>;
  query: Record<string, string>;
  body: Body;
  headers: Record<string, string | undefined>;
  principal?: Principal;
  subject?: string;
  /** In user mode: the caller's account, already read with the session check. */
  account?: Account;
  /**
   * What the route's plan read before it ran: in user mode with the session check
   * (AlongSession), in system mode beside the signing keys' read (AlongKeys), if one was due.
   */
  alongSession?: unknown;
  /** Message language: Accept-Language en on v3 routes (registration included), else the configured default. */
  language: "ru" | "en";
  sourceIp?: string;
  userAgent?: string;
}

export type RouteHandler = (call: ApiCall) => Promise<HttpResult>;

function languageOf(route: ServedRoute, acceptLanguage: string | undefined): "ru" | "en" {
  if ((route.version === "v3" || route.version === "reg") && acceptLanguage && /^\s*en\b/i.test(acceptLanguage))
    return "en";
  return config().settings.defaultLanguage;
}

/**
 * Builds the Lambda handler of one endpoint group from its served routes
 * (lib/compiled/<fn>-routes.ts). Every route the table gives this function must have an
 * implementation and no implementation may lack a route, so a route cannot be half added.
 */
export function createApiFunction(
  fn: FunctionName,
  served: readonly ServedRoute[],
  implementations: Record<string, RouteHandler>,
  options: {
    /** For the function that answers `$default`: every route, so an unmatched call gets 405 rather than 404. */
    known?: readonly RouteShape[];
    /** By route id: reads that ride in a user token's session check. */
    alongSession?: Readonly<Record<string, AlongSession>>;
    /** By route id: a system call's first read, sent beside the signing keys' read when one is due. */
    alongKeys?: Readonly<Record<string, AlongKeys>>;
  } = {},
) {
  const expected = served.filter((r) => r.fn === fn).map((r) => r.id);
  const missing = expected.filter((id) => !implementations[id]);
  const extra = Object.keys(implementations).filter((id) => !expected.includes(id));
  if (missing.length > 0 || extra.length > 0) {
    throw new Error(
      `function ${fn}: routes without implementation [${missing}], implementations without route [${extra}]`,
    );
  }

  const dispatch = async (event: APIGatewayProxyEventV2, context: Context): Promise<HttpResult> => {
    const state = (context as SvcContext).svc;
    const route = state.route as ServedRoute;
    const headers = event.headers ?? {};
    const result = await implementations[route.id]({
      route,
      requestId: state.requestId,
      params: state.params,
      query: state.query,
      body: (event as { body?: unknown }).body,
      headers,
      principal: state.principal,
      subject: state.subject,
      account: state.account,
      alongSession: state.alongSession,
      language: languageOf(route, headers["accept-language"]),
      sourceIp: sourceIpOf(event),
      userAgent: headers["user-agent"],
    });
    result.headers = { ...result.headers, "x-request-id": state.requestId };
    return result;
  };

  // Order matters: the error shaper first, so its onError runs last (middy runs onError in reverse).
  return middy<APIGatewayProxyEventV2, HttpResult, Error, SvcContext>()
    .use(errorShaper())
    .use(routeResolution(served, options.known ?? served))
    .use(keyWarmUp())
    .use(httpHeaderNormalizer())
    .use(bodyParsing())
    .use(validation())
    .use(authentication(options.alongSession, options.alongKeys))
    .use(authorization())
    .use(securityEvent())
    .handler(dispatch);
}
