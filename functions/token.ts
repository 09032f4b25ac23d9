import { validators } from "../lib/compiled/token-validators";
import { perCall, requestChecks, services } from "../lib/container";
import { oidcUseCases } from "../lib/domain/oidc/oidc-endpoints";
import { createApiFunction } from "../lib/http/pipeline";
import { oidcRoutes } from "../lib/routes/oidc";
import { tokenRoutes } from "../lib/routes/token";

const oidc = perCall(() => oidcUseCases(services()));

export const handler = createApiFunction("token", [...tokenRoutes, ...oidcRoutes(oidc)], validators, requestChecks());
