import { validators } from "../lib/compiled/clients-validators";
import { perCall, requestChecks, services } from "../lib/container";
import { clientUseCases } from "../lib/domain/clients/management";
import { createApiFunction } from "../lib/http/pipeline";
import { clientsRoutes } from "../lib/routes/clients";

const clients = perCall(() => clientUseCases(services()));

export const handler = createApiFunction("clients", clientsRoutes(clients), validators, requestChecks());
