import { validators } from "../lib/compiled/passwords-validators";
import { passwordChangeDeps, perCall, requestChecks } from "../lib/container";
import { passwordUseCases } from "../lib/domain/passwords/passwords";
import { createApiFunction } from "../lib/http/pipeline";
import { passwordsRoutes } from "../lib/routes/passwords";

const passwords = perCall(() => passwordUseCases(passwordChangeDeps()));

export const handler = createApiFunction("passwords", passwordsRoutes(passwords), validators, requestChecks());
