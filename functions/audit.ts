import { validators } from "../lib/compiled/audit-validators";
import { createApiFunction } from "../lib/http/pipeline";
import { auditRoutes } from "../lib/routes/audit";

export const handler = createApiFunction("audit", auditRoutes, validators);
