import { validators } from "../lib/compiled/rights-validators";
import { requestChecks } from "../lib/container";
import { createApiFunction } from "../lib/http/pipeline";
import { rightsRoutes } from "../lib/routes/rights";

export const handler = createApiFunction("rights", rightsRoutes, validators, requestChecks());
