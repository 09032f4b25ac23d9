import { deviceView } from "../lib/domain/devices/device";
import { ApiError, problems } from "../lib/domain/errors";
import { jsonResult } from "../lib/http/error-body";
import { type ApiCall, createApiFunction } from "../lib/http/pipeline";
import { services } from "../lib/services";

async function requireAccount(call: ApiCall): Promise<string> {
  const sub = call.subject as string;
  if (call.account?.sub !== sub && !(await services().accounts.get(sub))) throw problems.unknownUser(sub);
  return sub;
}

async function listDevices(call: ApiCall) {
  const sub = await requireAccount(call);
  const devices = await services().sessions.listDevices(sub);
  return jsonResult(200, devices.sort((a, b) => b.lastUsed - a.lastUsed).map(deviceView));
}

/** Forgets one device and ends every session on it: their tokens are refused at once. */
async function deleteDevice(call: ApiCall) {
  const sub = call.subject as string;
  const id = call.params.id;
  const ended = await services().sessions.endSessionsAndDevices(sub, {
    session: (s) => s.uaId === id,
    device: (d) => d.id === id,
  });
  if (ended.devices === 0) {
    throw new ApiError(404, "input_error", "unknown_device", "the account has no device with this id", { pos: "id" });
  }
  return jsonResult(204, undefined);
}

export const handler = createApiFunction("devices", {
  "devices.list-uas": listDevices,
  "devices.list-apps": listDevices,
  "devices.delete-uas": deleteDevice,
  "devices.delete-apps": deleteDevice,

  "devices.sessions-reset": async (call) => {
    const sub = await requireAccount(call);
    const keep = call.headers["svc-ci-ua-id"];
    await services().sessions.endSessionsAndDevices(sub, {
      session: (s) => keep === undefined || s.uaId !== keep,
      // A reset ends sessions; devices stay remembered (SPEC 4.14 lists them apart).
      device: () => false,
    });
    return jsonResult(204, undefined);
  },
});
