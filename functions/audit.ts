import { validators } from "../lib/compiled/audit-validators";
import { config } from "../lib/config";
import { perCall, requestChecks, services } from "../lib/container";
import { activityUseCases } from "../lib/domain/audit/activity";
import { auditUseCases } from "../lib/domain/audit/audit";
import { createApiFunction } from "../lib/http/pipeline";
import { activityRoutes } from "../lib/routes/activity";
import { auditRoutes } from "../lib/routes/audit";

const retentionDays = () => config().settings.audit.retentionDays;
const audit = perCall(() => auditUseCases({ ...services(), retentionDays: retentionDays() }));
const activity = perCall(() =>
  activityUseCases({
    index: services().events,
    retentionDays: retentionDays(),
    identityEvents: services().identityEvents,
    identityEventDays: config().settings.audit.identityEventDays,
  }),
);

export const handler = createApiFunction(
  "audit",
  [...auditRoutes(audit), ...activityRoutes(activity)],
  validators,
  requestChecks(),
);
