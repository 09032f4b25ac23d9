import { servedRoutes } from "../lib/compiled/meta-routes";
import { jsonResult } from "../lib/http/error-body";
import { buildOpenApiDocument } from "../lib/http/openapi";
import { createApiFunction } from "../lib/http/pipeline";
import { routes } from "../lib/routes";
import { storageAnswers } from "../lib/store/health";

/** Service routes, and API Gateway's `$default` route: 404/405 for anything unmatched. */
export const handler = createApiFunction(
  "meta",
  servedRoutes,
  {
    "meta.health": async () => {
      await storageAnswers();
      return jsonResult(200, { status: "ok" }, { "cache-control": "no-store" });
    },

    "meta.openapi": async () => jsonResult(200, buildOpenApiDocument(), { "cache-control": "public, max-age=300" }),
  },
  // The OpenAPI document needs the whole table anyway.
  { known: routes },
);
