import { validators } from "../lib/compiled/audit-validators";
import { requestChecks } from "../lib/container";
import { createApiFunction } from "../lib/http/pipeline";
import { auditRoutes } from "../lib/routes/audit";

export const handler = createApiFunction("audit", auditRoutes, validators, requestChecks());
