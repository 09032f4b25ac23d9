import { SYSTEM_PERMISSIONS, USER_PERMISSIONS } from "../domain/permissions";
import type { RouteDefinition, Schema } from "./route";

/** The OpenAPI 3.1 document, built from the routes by npm run compile-schemas (lib/compiled/openapi.ts). */

/** Shared schemas by identity: each is written once under components and referenced, not repeated per route. */
type SchemaNames = Map<Schema, string>;

function refOr(schema: Schema, names: SchemaNames): Schema {
  const name = names.get(schema);
  return name ? { $ref: `#/components/schemas/${name}` } : schema;
}

function parametersOf(route: RouteDefinition) {
  const list: Array<Record<string, unknown>> = [];
  const add = (where: "path" | "query", schema: Schema | undefined) => {
    const properties = (schema?.properties ?? {}) as Record<string, Schema>;
    const required = new Set((schema?.required as string[] | undefined) ?? []);
    for (const [name, property] of Object.entries(properties)) {
      list.push({
        name,
        in: where,
        required: where === "path" || required.has(name),
        ...(property.description ? { description: property.description } : {}),
        schema: property,
      });
    }
  };
  add("path", route.request?.params);
  add("query", route.request?.query);
  return list;
}

function securityOf(route: RouteDefinition) {
  const scopes = [...(route.permissions?.user ?? []), ...(route.permissions?.system ?? [])];
  // oauth2 first: client generators and consoles learn the flows and scopes from it.
  const bearer = [{ oauth2: scopes }, { bearerToken: scopes }];
  switch (route.auth) {
    case "bearer":
      return bearer;
    case "bearer-or-basic":
      return [...bearer, { restPassword: [] }];
    case "user-bearer-or-user-basic":
      return [...bearer, { userPassword: [] }];
    case "client":
      return [{ clientBasic: [] }, {}];
    case "scim-bearer":
      return [{ scimToken: [] }];
    default:
      return [];
  }
}

function operationOf(route: RouteDefinition, names: SchemaNames) {
  const body = route.request?.body;
  const permissions = route.permissions
    ? `\n\nPermissions: user mode ${route.permissions.user?.join(", ") || "none"}; system mode ${route.permissions.system?.join(", ") || "none"}.`
    : "";
  return {
    operationId: route.id,
    summary: route.summary,
    description: `${route.description ?? route.summary}${permissions}`,
    tags: route.tags,
    parameters: parametersOf(route),
    ...(body && {
      requestBody: {
        required: body.required ?? false,
        content: {
          [body.contentType === "json" ? "application/json" : "application/x-www-form-urlencoded"]: {
            schema: refOr(body.schema, names),
          },
        },
      },
    }),
    responses: Object.fromEntries(
      Object.entries(route.responses).map(([status, response]) => [
        status,
        {
          description: response.description,
          ...(response.headers && {
            headers: Object.fromEntries(
              Object.entries(response.headers).map(([name, description]) => [
                name,
                { description, schema: { type: "string" } },
              ]),
            ),
          }),
          ...(response.schema && {
            content: { [response.contentType ?? "application/json"]: { schema: refOr(response.schema, names) } },
          }),
        },
      ]),
    ),
    security: securityOf(route),
    "x-svc-version": route.version,
    "x-svc-function": route.fn,
    // An admin console operator must have signed in within 10 minutes (docs/interface.md §5.1).
    ...(route.recentSignIn && { "x-svc-recent-sign-in": true }),
  };
}

/** Every scope a route names that the permission tables do not, such as fed_tkn_{type}_{name}. */
function patternScopes(routes: readonly RouteDefinition[]): Record<string, string> {
  const known = new Set<string>([...USER_PERMISSIONS, ...SYSTEM_PERMISSIONS]);
  const extra: Record<string, string> = {};
  for (const route of routes) {
    for (const name of [...(route.permissions?.user ?? []), ...(route.permissions?.system ?? [])]) {
      if (!known.has(name)) extra[name] = "one permission per external provider (interface §4.9)";
    }
  }
  return extra;
}

/**
 * RFC 6749 flows of the one token endpoint: user permissions by the code flow (PKCE S256,
 * required of public clients), system permissions by client credentials (interface §5.3).
 */
function oauth2Scheme(routes: readonly RouteDefinition[]) {
  const scopesOf = (names: readonly string[]) =>
    Object.fromEntries(names.map((name) => [name, `interface §5.3 permission ${name}`]));
  return {
    type: "oauth2",
    description:
      "OAuth 2.0 at POST /svc/oauth/te. authorizationCode needs PKCE (code_challenge_method=S256) of public clients; the password and QR grants (interface §5.2) issue the same user permissions.",
    flows: {
      authorizationCode: {
        authorizationUrl: "/svc/oauth/authorize",
        tokenUrl: "/svc/oauth/te",
        refreshUrl: "/svc/oauth/te",
        scopes: scopesOf(USER_PERMISSIONS),
      },
      clientCredentials: {
        tokenUrl: "/svc/oauth/te",
        scopes: { ...scopesOf(SYSTEM_PERMISSIONS), ...patternScopes(routes) },
      },
    },
    "x-usePkce": "SHA-256",
  };
}

export function buildOpenApiDocument(
  routes: readonly RouteDefinition[],
  shared: Readonly<Record<string, Schema>> = {},
): Record<string, unknown> {
  const names: SchemaNames = new Map(Object.entries(shared).map(([name, schema]) => [schema, name]));
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    paths[route.path] ??= {};
    paths[route.path][route.method.toLowerCase()] = operationOf(route, names);
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "svc-identity",
      version: "0.1.0",
      description: "Identity provider with a REST management interface. Error bodies follow interface §7 by version.",
    },
    servers: [{ url: "/" }],
    paths,
    components: {
      schemas: shared,
      securitySchemes: {
        oauth2: oauth2Scheme(routes),
        bearerToken: {
          type: "http",
          scheme: "bearer",
          bearerFormat: "JWT",
          description: "Access token from POST /svc/oauth/te; the scope must hold a permission of the route.",
        },
        restPassword: {
          type: "http",
          scheme: "basic",
          description: "v1/v2 only: the application's id and REST password (interface §5.4).",
        },
        userPassword: {
          type: "http",
          scheme: "basic",
          description: "Calls on the current user: the user's own login (sub, e-mail or phone) and password.",
        },
        clientBasic: {
          type: "http",
          scheme: "basic",
          description: "OAuth client authentication: client_id and client_secret.",
        },
        scimToken: {
          type: "http",
          scheme: "bearer",
          description:
            "An organization's SCIM token (POST /svc/api/v3/orgs/{orgId}/scim/token): its identity provider provisions that organization alone (docs/scim.md).",
        },
      },
    },
  };
}
