import { validators } from "../lib/compiled/token-validators";
import { requestChecks } from "../lib/container";
import { createApiFunction } from "../lib/http/pipeline";
import { oidcRoutes } from "../lib/routes/oidc";
import { tokenRoutes } from "../lib/routes/token";

export const handler = createApiFunction("token", [...tokenRoutes, ...oidcRoutes], validators, requestChecks());
