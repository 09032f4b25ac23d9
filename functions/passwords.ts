import { validators } from "../lib/compiled/passwords-validators";
import { requestChecks } from "../lib/container";
import { createApiFunction } from "../lib/http/pipeline";
import { passwordsRoutes } from "../lib/routes/passwords";

export const handler = createApiFunction("passwords", passwordsRoutes, validators, requestChecks());
