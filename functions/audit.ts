import { validators } from "../lib/compiled/audit-validators";
import { config } from "../lib/config";
import { perCall, requestChecks, services } from "../lib/container";
import { auditUseCases } from "../lib/domain/audit/audit";
import { createApiFunction } from "../lib/http/pipeline";
import { auditRoutes } from "../lib/routes/audit";

const audit = perCall(() => auditUseCases({ ...services(), retentionDays: config().settings.audit.retentionDays }));

export const handler = createApiFunction("audit", auditRoutes(audit), validators, requestChecks());
