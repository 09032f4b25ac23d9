import { validators } from "../lib/compiled/clients-validators";
import { clientRegistrationDeps, perCall, requestChecks, services } from "../lib/container";
import { clientUseCases } from "../lib/domain/clients/management";
import { clientRegistrationUseCases } from "../lib/domain/clients/registration";
import { createApiFunction } from "../lib/http/pipeline";
import { clientRegistrationRoutes } from "../lib/routes/client-registration";
import { clientsRoutes } from "../lib/routes/clients";

const clients = perCall(() => clientUseCases(services()));
const registration = perCall(() => clientRegistrationUseCases(clientRegistrationDeps()));

export const handler = createApiFunction(
  "clients",
  [...clientsRoutes(clients), ...clientRegistrationRoutes(registration)],
  validators,
  requestChecks(),
);
