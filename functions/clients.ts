import { validators } from "../lib/compiled/clients-validators";
import { config } from "../lib/config";
import { clientRegistrationDeps, perCall, requestChecks, services } from "../lib/container";
import { clientUseCases } from "../lib/domain/clients/management";
import { clientRegistrationUseCases } from "../lib/domain/clients/registration";
import { resourceUseCases } from "../lib/domain/resources/management";
import { createApiFunction } from "../lib/http/pipeline";
import { clientRegistrationRoutes } from "../lib/routes/client-registration";
import { clientsRoutes } from "../lib/routes/clients";
import { resourcesRoutes } from "../lib/routes/resources";

const clients = perCall(() => clientUseCases(services()));
const resources = perCall(() => resourceUseCases({ ...services(), ownResource: config().issuer }));
const registration = perCall(() => clientRegistrationUseCases(clientRegistrationDeps()));

export const handler = createApiFunction(
  "clients",
  [...clientsRoutes(clients), ...clientRegistrationRoutes(registration), ...resourcesRoutes(resources)],
  validators,
  requestChecks(),
);
