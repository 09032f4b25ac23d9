import { validators } from "../lib/compiled/devices-validators";
import { createApiFunction } from "../lib/http/pipeline";
import { devicesRoutes } from "../lib/routes/devices";

export const handler = createApiFunction("devices", devicesRoutes, validators);
