import { validators } from "../lib/compiled/meta-validators";
import { openApiDocument } from "../lib/compiled/openapi";
import { perCall, requestChecks, storageAnswers } from "../lib/container";
import { healthUseCases } from "../lib/domain/health";
import { createApiFunction } from "../lib/http/pipeline";
import type { HttpMethod } from "../lib/http/route";
import { metaRoutes } from "../lib/routes/meta";

/** Every route of the service, from the OpenAPI document: an unmatched method gets 405, not 404. */
const known = Object.entries(openApiDocument.paths).flatMap(([path, operations]) =>
  Object.keys(operations as object).map((method) => ({ method: method.toUpperCase() as HttpMethod, path })),
);

const health = perCall(() => healthUseCases({ storageAnswers }));

/** Service routes, and API Gateway's `$default` route: 404/405 for anything unmatched. */
export const handler = createApiFunction("meta", metaRoutes(health), validators, requestChecks(), known);
