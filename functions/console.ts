import { validators } from "../lib/compiled/console-validators";
import { config } from "../lib/config";
import type { CallerChecks } from "../lib/domain/callers/caller-checks";
import { createApiFunction } from "../lib/http/pipeline";
import { specsOnly } from "../lib/http/route";
import { consoleRoutes } from "../lib/routes/console";

// Its routes take no token (auth none), so no caller check is ever asked: none is wired, and the
// bundle carries no table client (one that were asked would fail loudly, as specsOnly does).
export const handler = createApiFunction(
  "console",
  consoleRoutes({ defaultLanguage: () => config().settings.defaultLanguage }),
  validators,
  specsOnly<CallerChecks>(),
);
