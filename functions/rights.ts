import { validators } from "../lib/compiled/rights-validators";
import { perCall, requestChecks, services } from "../lib/container";
import { rightUseCases } from "../lib/domain/rights/rights";
import { createApiFunction } from "../lib/http/pipeline";
import { rightsRoutes } from "../lib/routes/rights";

const rights = perCall(() => rightUseCases(services()));

export const handler = createApiFunction("rights", rightsRoutes(rights), validators, requestChecks());
