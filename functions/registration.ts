import { validators } from "../lib/compiled/registration-validators";
import { requestChecks } from "../lib/container";
import { createApiFunction } from "../lib/http/pipeline";
import { registrationRoutes } from "../lib/routes/registration";

export const handler = createApiFunction("registration", registrationRoutes, validators, requestChecks());
