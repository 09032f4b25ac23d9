import { validators } from "../lib/compiled/federation-validators";
import { config } from "../lib/config";
import { federationDeps, perCall, requestChecks } from "../lib/container";
import { federationUseCases } from "../lib/domain/federation/federation";
import { createApiFunction } from "../lib/http/pipeline";
import { brandOf, brandPages } from "../lib/pages/brand";
import { federationRoutes } from "../lib/routes/federation";

const federation = perCall(() => federationUseCases(federationDeps()));

// The pages this function serves show the operator's product name, logo and theme.
brandPages(() => brandOf(config().settings.branding));

export const handler = createApiFunction("federation", federationRoutes(federation), validators, requestChecks());
