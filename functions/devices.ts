import { validators } from "../lib/compiled/devices-validators";
import { perCall, requestChecks, services } from "../lib/container";
import { deviceUseCases } from "../lib/domain/devices/devices";
import { createApiFunction } from "../lib/http/pipeline";
import { devicesRoutes } from "../lib/routes/devices";

const devices = perCall(() => deviceUseCases(services()));

export const handler = createApiFunction("devices", devicesRoutes(devices), validators, requestChecks());
