import type { HealthUseCases } from "../domain/health";
import { jsonResult } from "../http/error-body";
import { group, route } from "../http/route";
import { v3Error } from "./schemas";

const healthRoute = (health: HealthUseCases) =>
  route({
    id: "meta.health",
    method: "GET",
    path: "/svc/health",
    version: "meta",
    auth: "none",
    summary: "Health: 200 once storage answers",
    tags: ["service"],
    responses: {
      200: {
        description: "Storage answers",
        schema: { type: "object", required: ["status"], properties: { status: { const: "ok" } } },
      },
      503: { description: "Storage does not answer", schema: v3Error },
    },
    handler: async () => {
      await health.check();
      return jsonResult(200, { status: "ok" }, { "cache-control": "no-store" });
    },
  });

const openapiRoute = route({
  id: "meta.openapi",
  method: "GET",
  path: "/svc/api/openapi.json",
  version: "meta",
  auth: "none",
  summary: "This OpenAPI 3.1 document",
  tags: ["service"],
  responses: { 200: { description: "OpenAPI document", schema: { type: "object" } } },
  // The document (300 KiB) is evaluated on its first request, not at the meta function's cold start.
  handler: async () =>
    jsonResult(200, (await import("../compiled/openapi")).openApiDocument, { "cache-control": "public, max-age=300" }),
});

export const metaRoutes = (health: HealthUseCases) => group("meta", [healthRoute(health), openapiRoute]);
