import { servedRoutes } from "../lib/compiled/devices-routes";
import { type DeviceRecord, deviceView } from "../lib/domain/devices/device";
import { ApiError, problems } from "../lib/domain/errors";
import type { AlongSession } from "../lib/http/along-session";
import { jsonResult } from "../lib/http/error-body";
import { userCallEvent } from "../lib/http/middleware/security-event";
import { type ApiCall, createApiFunction } from "../lib/http/pipeline";
import { services } from "../lib/services";

/**
 * One Query: for a user token's own account the devices alone, sent beside the session
 * check (which read the profile); otherwise the devices with the profile.
 */
async function listDevices(call: ApiCall) {
  const sub = call.subject as string;
  let devices: DeviceRecord[];
  if (call.account?.sub === sub) {
    devices = (call.alongSession as DeviceRecord[] | undefined) ?? (await services().sessions.listDevices(sub));
  } else {
    const read = await services().sessions.devicesOfAccount(sub);
    if (!read.accountExists) throw problems.unknownUser(sub);
    devices = read.devices;
  }
  return jsonResult(200, devices.sort((a, b) => b.lastUsed - a.lastUsed).map(deviceView));
}

/** Forgets one device and ends every session on it: their tokens are refused at once. */
async function deleteDevice(call: ApiCall) {
  const sub = call.subject as string;
  const id = call.params.id;
  const event = userCallEvent(call);
  const ended = await services().sessions.endSessionsAndDevices(
    sub,
    { session: (s) => s.uaId === id, device: (d) => d.id === id },
    // An unknown device writes nothing: its refusal is recorded as such by the middleware.
    ({ devices }) => (event && devices > 0 ? [services().events.putItem(event)] : []),
  );
  if (ended.devices === 0) {
    throw new ApiError(404, "input_error", "unknown_device", "the account has no device with this id", { pos: "id" });
  }
  return jsonResult(204, undefined);
}

/** A user token lists its own devices: the Query goes out with the session check. */
const devicesBesideSession: AlongSession = (caller) =>
  caller.params.subjectId === caller.sub ? { beside: () => services().sessions.listDevices(caller.sub) } : undefined;

export const handler = createApiFunction(
  "devices",
  servedRoutes,
  {
    "devices.list-uas": listDevices,
    "devices.list-apps": listDevices,
    "devices.delete-uas": deleteDevice,
    "devices.delete-apps": deleteDevice,

    "devices.sessions-reset": async (call) => {
      const sub = call.subject as string;
      const keep = call.headers["svc-ci-ua-id"];
      const event = userCallEvent(call);
      const ended = await services().sessions.endSessionsAndDevices(
        sub,
        {
          session: (s) => keep === undefined || s.uaId !== keep,
          // A reset ends sessions; devices stay remembered (SPEC 4.14 lists them apart).
          device: () => false,
        },
        () => (event ? [services().events.putItem(event)] : []),
      );
      if (!ended.accountExists) throw problems.unknownUser(sub);
      return jsonResult(204, undefined);
    },
  },
  { alongSession: { "devices.list-uas": devicesBesideSession, "devices.list-apps": devicesBesideSession } },
);
