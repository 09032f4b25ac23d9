import { validators } from "../lib/compiled/clients-validators";
import { config } from "../lib/config";
import { clientRegistrationDeps, keyDeps, perCall, requestChecks, services } from "../lib/container";
import { clientUseCases } from "../lib/domain/clients/management";
import { clientRegistrationUseCases } from "../lib/domain/clients/registration";
import { keyUseCases } from "../lib/domain/keys/keys";
import { resourceUseCases } from "../lib/domain/resources/management";
import { createApiFunction } from "../lib/http/pipeline";
import { clientRegistrationRoutes } from "../lib/routes/client-registration";
import { clientsRoutes } from "../lib/routes/clients";
import { keysRoutes } from "../lib/routes/keys";
import { resourcesRoutes } from "../lib/routes/resources";

const clients = perCall(() => clientUseCases(services()));
const resources = perCall(() => resourceUseCases({ ...services(), ownResource: config().issuer }));
const registration = perCall(() => clientRegistrationUseCases(clientRegistrationDeps()));
const keys = perCall(() => keyUseCases(keyDeps()));

export const handler = createApiFunction(
  "clients",
  [
    ...clientsRoutes(clients),
    ...clientRegistrationRoutes(registration),
    ...resourcesRoutes(resources),
    ...keysRoutes(keys),
  ],
  validators,
  requestChecks(),
);
