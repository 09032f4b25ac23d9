import { validators } from "../lib/compiled/console-validators";
import { config } from "../lib/config";
import { requestChecks } from "../lib/container";
import { createApiFunction } from "../lib/http/pipeline";
import { consoleRoutes } from "../lib/routes/console";

// The routes take no token, so the caller checks are never asked: no table read, no key read.
export const handler = createApiFunction(
  "console",
  consoleRoutes({ defaultLanguage: () => config().settings.defaultLanguage }),
  validators,
  requestChecks(),
);
