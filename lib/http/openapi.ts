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
  switch (route.auth) {
    case "bearer":
      return [{ bearerToken: scopes }];
    case "bearer-or-basic":
      return [{ bearerToken: scopes }, { restPassword: [] }];
    case "user-bearer-or-user-basic":
      return [{ bearerToken: scopes }, { userPassword: [] }];
    case "client":
      return [{ clientBasic: [] }, {}];
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
          ...(response.schema && {
            content: { [response.contentType ?? "application/json"]: { schema: refOr(response.schema, names) } },
          }),
        },
      ]),
    ),
    security: securityOf(route),
    "x-svc-version": route.version,
    "x-svc-function": route.fn,
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
      },
    },
  };
}
