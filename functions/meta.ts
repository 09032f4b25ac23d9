import { validators } from "../lib/compiled/meta-validators";
import { routeShapes } from "../lib/compiled/route-shapes";
import { perCall, requestChecks, storageAnswers } from "../lib/container";
import { healthUseCases } from "../lib/domain/health";
import { createApiFunction } from "../lib/http/pipeline";
import { metaRoutes } from "../lib/routes/meta";

const health = perCall(() => healthUseCases({ storageAnswers }));

/** Service routes, and API Gateway's `$default` route: 404, or 405 for a known path with another method. */
export const handler = createApiFunction("meta", metaRoutes(health), validators, requestChecks(), routeShapes);
