import { validators } from "../lib/compiled/clients-validators";
import { requestChecks } from "../lib/container";
import { createApiFunction } from "../lib/http/pipeline";
import { clientsRoutes } from "../lib/routes/clients";

export const handler = createApiFunction("clients", clientsRoutes, validators, requestChecks());
