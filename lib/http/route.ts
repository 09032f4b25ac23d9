/** The shape of one entry of the route table (lib/routes.ts, DESIGN 3). */

import type { ValidateFunction } from "ajv";

export type HttpMethod = "GET" | "POST" | "PUT" | "DELETE" | "PATCH";

/** Decides the error body shape (SPEC 7.1) and the accepted authorization (SPEC 9). */
export type ApiVersion = "v1" | "v2" | "v3" | "reg" | "oauth" | "meta";

/**
 * bearer: an access token; bearer-or-basic: v1/v2 routes, which also accept the
 * application's REST password (SPEC 5.4); user-bearer-or-user-basic: calls on the
 * `current` user, by a user access token or the user's own login and password (HTTP
 * Basic); client: OAuth client authentication (token endpoint); none: public.
 */
export type AuthKind = "bearer" | "bearer-or-basic" | "user-bearer-or-user-basic" | "client" | "none";

/** Endpoint groups: one Lambda function each (DESIGN 2). */
export const FUNCTION_NAMES = [
  "token",
  "users",
  "registration",
  "passwords",
  "security",
  "devices",
  "meta",
  "federation",
  "rights",
  "groups",
  "jobs",
  "audit",
] as const;
export type FunctionName = (typeof FUNCTION_NAMES)[number];

export type JsonSchema = Record<string, unknown>;

export interface RouteResponse {
  description: string;
  schema?: JsonSchema;
  contentType?: string;
}

export interface RouteDefinition {
  /** Stable id, used by functions to bind their implementation. */
  id: string;
  method: HttpMethod;
  /** API Gateway syntax: /svc/api/v3/users/{subjectId} */
  path: string;
  fn: FunctionName;
  version: ApiVersion;
  auth: AuthKind;
  /**
   * Permissions that open the route, by token mode (SPEC 5.3). `{param}` in a name is
   * replaced by that path parameter: `fed_tkn_{fedPointType}_{fedPointName}`.
   */
  permissions?: { user?: string[]; system?: string[] };
  /** Where the account the call acts on is named: user tokens may only act on their own. */
  subject?: { param: string; kind: "subjectId" | "instanceId" | "contactState" };
  /**
   * The security event of user-mode calls (SPEC 6): its type (default: the route id),
   * and whether the handler writes it in its own transaction.
   */
  event?: { type: string; inTransaction?: boolean };
  /** User mode must send the user's X-Forwarded-For and User-Agent (SPEC 5.1); they go into security events. */
  userHeaders?: boolean;
  summary: string;
  description?: string;
  tags: string[];
  request?: {
    params?: JsonSchema;
    query?: JsonSchema;
    body?: { contentType: "json" | "form"; schema: JsonSchema; required?: boolean };
  };
  responses: Record<number, RouteResponse>;
}

/** Enough of a route to match a request to it. */
export type RouteShape = Pick<RouteDefinition, "method" | "path">;

export function routeKey(route: RouteShape): string {
  return `${route.method} ${route.path}`;
}

/**
 * What a function keeps of a route at run time: the table entry without its
 * documentation and schemas, with its request validators compiled ahead of time
 * (lib/compiled/<fn>-routes.ts, made by npm run compile-schemas).
 */
export interface ServedRoute
  extends Pick<
    RouteDefinition,
    "id" | "method" | "path" | "fn" | "version" | "auth" | "permissions" | "subject" | "event" | "userHeaders"
  > {
  body?: { contentType: "json" | "form"; required: boolean };
  validate?: { params?: ValidateFunction; query?: ValidateFunction; body?: ValidateFunction };
}
