import { validators } from "../lib/compiled/users-validators";
import { requestChecks } from "../lib/container";
import { createApiFunction } from "../lib/http/pipeline";
import { usersRoutes } from "../lib/routes/users";

export const handler = createApiFunction("users", usersRoutes, validators, requestChecks());
