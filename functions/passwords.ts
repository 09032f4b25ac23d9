import { validators } from "../lib/compiled/passwords-validators";
import { createApiFunction } from "../lib/http/pipeline";
import { passwordsRoutes } from "../lib/routes/passwords";

export const handler = createApiFunction("passwords", passwordsRoutes, validators);
