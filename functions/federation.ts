import { validators } from "../lib/compiled/federation-validators";
import { requestChecks } from "../lib/container";
import { createApiFunction } from "../lib/http/pipeline";
import { federationRoutes } from "../lib/routes/federation";

export const handler = createApiFunction("federation", federationRoutes, validators, requestChecks());
