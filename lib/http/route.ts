/** The shape of one route (lib/routes/<group>.ts) and the typed call its handler receives. */

import type { FromSchema, JSONSchema } from "json-schema-to-ts";
import type { Account } from "../domain/accounts/account";
import type { Prefetch } from "../domain/unit-of-work";
import type { Principal } from "./principal";

/** What a handler answers, in the shape API Gateway takes. */
export interface HttpResult {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
  /** Set-Cookie values (API Gateway payload 2.0 `cookies`). */
  cookies?: string[];
}

export type HttpMethod = "GET" | "POST" | "PUT" | "DELETE" | "PATCH";

/** Decides the error body shape (interface §7.1) and the accepted authorization (interface §9). */
export type ApiVersion = "v1" | "v2" | "v3" | "reg" | "oauth" | "meta" | "page" | "scim";

/**
 * bearer: an access token; bearer-or-basic: v1/v2 routes, which also accept the
 * application's REST password (interface §5.4); user-bearer-or-user-basic: calls on the
 * `current` user, by a user access token or the user's own login and password (HTTP
 * Basic); client: OAuth client authentication (token endpoint); scim-bearer: an
 * organization's SCIM token (docs/scim.md); none: public.
 */
export type AuthKind = "bearer" | "bearer-or-basic" | "user-bearer-or-user-basic" | "client" | "scim-bearer" | "none";

/** Endpoint groups: one Lambda function each. */
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
  "hosted",
  "account",
  "clients",
  "events",
  "console",
  "scim",
] as const;
export type FunctionName = (typeof FUNCTION_NAMES)[number];

/**
 * A JSON Schema written `as const`, so request types can be derived from it. Checked
 * against the meta-schema by test/lib/routes.test.ts; typed loosely here, since matching
 * a large literal against json-schema-to-ts's recursive JSONSchema type exhausts tsc.
 */
export type Schema = { readonly [keyword: string]: unknown };

export interface RouteResponse {
  description: string;
  schema?: Schema;
  contentType?: string;
  /** Response headers worth documenting: name -> what it carries. */
  headers?: Record<string, string>;
}

export interface BodySchema<S extends Schema = Schema> {
  contentType: "json" | "form";
  schema: S;
  required?: boolean;
}

/** Where the account the call acts on is named: user tokens may only act on their own. */
export interface SubjectOfPath {
  param: string;
  kind: "subjectId" | "instanceId" | "contactState";
}

/** What is known of a user-mode call when its session is checked, before the route runs. */
export interface SessionCaller {
  /** The token's subject: the caller. */
  sub: string;
  params: Record<string, string>;
  sourceIp?: string;
  now: number;
}

/** Everything of a route but its handler: what the stack, the gateway, validation and OpenAPI read. */
export interface RouteSpec {
  /** Stable id: `<group>.<name>`. */
  id: string;
  method: HttpMethod;
  /** API Gateway syntax: /svc/api/v3/users/{subjectId} */
  path: string;
  version: ApiVersion;
  auth: AuthKind;
  /**
   * Permissions that open the route, by token mode (interface §5.3). `{param}` in a name is
   * replaced by that path parameter: `fed_tkn_{fedPointType}_{fedPointName}`.
   */
  permissions?: { user?: readonly string[]; system?: readonly string[] };
  subject?: SubjectOfPath;
  /**
   * The security event of user-mode calls (interface §6): its type (default: the route id),
   * and whether the handler writes it in its own transaction.
   */
  event?: { type: string; inTransaction?: boolean };
  /** An OAuth route whose RFC names the error of a request its schemas refuse (RFC 7591: invalid_client_metadata). */
  invalidInput?: "invalid_client_metadata";
  /** User mode must send the user's X-Forwarded-For and User-Agent (interface §5.1); they go into security events. */
  userHeaders?: boolean;
  /** Destructive: an operator of the admin console must have signed in within 10 minutes (RFC 9470 step-up). */
  recentSignIn?: boolean;
  summary: string;
  description?: string;
  tags: readonly string[];
  request?: { params?: Schema; query?: Schema; body?: BodySchema };
  responses: Record<number, RouteResponse>;
}

/** A schema's type; the loose `Schema` of the erased handler type decodes to a plain record, not through FromSchema. */
type Decoded<S> = S extends undefined
  ? Record<string, never>
  : string extends keyof S
    ? Record<string, unknown>
    : S extends JSONSchema
      ? FromSchema<S>
      : Record<string, never>;
type BodyOf<B> =
  B extends BodySchema<infer S> ? (B extends { required: true } ? Decoded<S> : Decoded<S> | undefined) : undefined;

/** What a handler receives: the request checked against its schemas, typed from them. */
export interface ApiCall<R extends RouteSpec["request"] = undefined, Subject = undefined, Read = never> {
  route: RouteDefinition;
  requestId: string;
  params: Decoded<NonNullable<R>["params"]>;
  query: Decoded<NonNullable<R>["query"]>;
  body: BodyOf<NonNullable<R>["body"]>;
  headers: Record<string, string | undefined>;
  principal?: Principal;
  /** A SCIM call's organization, named by its SCIM token. */
  scimOrg?: string;
  /** The account the path names; a string whenever the route declares `subject`. */
  subject: Subject extends SubjectOfPath ? string : undefined;
  /** In user mode: the caller's account, read with the session check. */
  account?: Account;
  /** In user mode: what the route's `prefetch` plan read with the session check. */
  prefetched?: Read;
  /** Message language: Accept-Language en on v3 routes (registration included), else the configured default. */
  language: "ru" | "en";
  /** Cookies the browser sent, by name (hosted pages only read them). */
  cookies: Record<string, string>;
  /** The user's address as an application may relay it (X-Forwarded-For), else the connection's. */
  sourceIp?: string;
  /** The connection's own address: what the brute-force limits key on for callers nobody vouches for. */
  connectionIp?: string;
  userAgent?: string;
}

/** A route as the table holds it: its spec, the function that serves it, and its handler. */
export interface RouteDefinition extends RouteSpec {
  fn: FunctionName;
  /**
   * Keys a user-mode call reads in its session check's BatchGetItem: one read instead of
   * two. The result reaches the handler only once the session is confirmed.
   */
  prefetch?: (caller: SessionCaller) => Prefetch<unknown>;
  handler: (call: ApiCall<RouteSpec["request"], SubjectOfPath | undefined, unknown>) => Promise<HttpResult>;
}

/**
 * One route: its spec and its handler, typed from the spec's schemas. Declare
 * `prefetch` before `handler`, so the handler's `call.prefetched` takes its type.
 */
export function route<
  const R extends RouteSpec["request"] = undefined,
  const Subject extends SubjectOfPath | undefined = undefined,
  Read = never,
>(
  spec: Omit<RouteSpec, "request" | "subject"> & {
    request?: R;
    subject?: Subject;
    prefetch?: (caller: SessionCaller) => Prefetch<Read>;
    handler: (call: ApiCall<R, Subject, Read>) => Promise<HttpResult>;
  },
): Omit<RouteDefinition, "fn"> {
  return spec as unknown as Omit<RouteDefinition, "fn">;
}

/** An endpoint group's routes, all served by its function. */
export function group(fn: FunctionName, routes: Array<Omit<RouteDefinition, "fn">>): RouteDefinition[] {
  return routes.map((r) => ({ ...r, fn }));
}

/**
 * Use cases for building a route group only to read its specs (the stack, the local gateway's
 * matching, validators, OpenAPI): a handler that ran on them would fail loudly, never quietly.
 */
export function specsOnly<T extends object>(): T {
  return new Proxy({} as T, {
    get: (_target, name) => {
      throw new Error(`route specs only: use case ${String(name)} was not handed to this route group`);
    },
  });
}

/** Enough of a route to match a request to it. */
export type RouteShape = Pick<RouteSpec, "method" | "path">;

export function routeKey(route: RouteShape): string {
  return `${route.method} ${route.path}`;
}

/** What a handler shared by several routes reads besides its own typed fields. */
export type CommonCall = Omit<ApiCall, "params" | "query" | "body" | "subject" | "prefetched">;
