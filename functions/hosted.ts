import { validators } from "../lib/compiled/hosted-validators";
import { requestChecks } from "../lib/container";
import { createApiFunction } from "../lib/http/pipeline";
import { hostedRoutes } from "../lib/routes/hosted";

export const handler = createApiFunction("hosted", hostedRoutes, validators, requestChecks());
