import { validators } from "../lib/compiled/registration-validators";
import { perCall, registrationDeps, requestChecks } from "../lib/container";
import { registrationUseCases } from "../lib/domain/registration/registration";
import { createApiFunction } from "../lib/http/pipeline";
import { registrationRoutes } from "../lib/routes/registration";

const registration = perCall(() => registrationUseCases(registrationDeps()));

export const handler = createApiFunction("registration", registrationRoutes(registration), validators, requestChecks());
