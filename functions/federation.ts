import { validators } from "../lib/compiled/federation-validators";
import { federationDeps, perCall, requestChecks } from "../lib/container";
import { federationUseCases } from "../lib/domain/federation/federation";
import { createApiFunction } from "../lib/http/pipeline";
import { federationRoutes } from "../lib/routes/federation";

const federation = perCall(() => federationUseCases(federationDeps()));

export const handler = createApiFunction("federation", federationRoutes(federation), validators, requestChecks());
