import { validators } from "../lib/compiled/security-validators";
import { requestChecks } from "../lib/container";
import { createApiFunction } from "../lib/http/pipeline";
import { securityRoutes } from "../lib/routes/security";

export const handler = createApiFunction("security", securityRoutes, validators, requestChecks());
