import { validators } from "../lib/compiled/groups-validators";
import { requestChecks } from "../lib/container";
import { createApiFunction } from "../lib/http/pipeline";
import { groupsRoutes } from "../lib/routes/groups";

export const handler = createApiFunction("groups", groupsRoutes, validators, requestChecks());
