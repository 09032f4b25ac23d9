import { services } from "../container";
import { type DeviceRecord, deviceView } from "../domain/devices/device";
import { ApiError, problems } from "../domain/errors";
import { jsonResult } from "../http/error-body";
import { userCallEvent } from "../http/middleware/security-event";
import type { CommonCall } from "../http/route";
import { group, route } from "../http/route";
import { subjectIdParam, subjectItemParams, v3Error } from "./schemas";

export const deviceList = {
  type: "array",
  items: {
    type: "object",
    required: ["id", "name", "lastUsed", "subjectId"],
    properties: {
      name: { type: "string" },
      lastUsed: { type: "integer" },
      tp: { type: "string" },
      os: { type: "string" },
      newlyCreated: { type: "boolean" },
      deviceType: { type: "string" },
      latestIp: { type: "string" },
      subjectId: { type: "string" },
      id: { type: "string" },
      trusted: { type: "boolean" },
      cls: { type: "boolean" },
      deviceId: { type: "string" },
      device: { type: "string" },
    },
  },
} as const;

export const deviceParams = subjectItemParams("device id (ua_id) from the list");

/**
 * One Query: for a user token's own account the devices alone (the session check read
 * the profile); otherwise the devices with the profile.
 */
async function listDevices(call: CommonCall & { subject: string }) {
  const sub = call.subject;
  let devices: DeviceRecord[];
  if (call.account?.sub === sub) {
    devices = await services().sessions.listDevices(sub);
  } else {
    const read = await services().sessions.devicesOfAccount(sub);
    if (!read.accountExists) throw problems.unknownUser(sub);
    devices = read.devices;
  }
  return jsonResult(200, devices.sort((a, b) => b.lastUsed - a.lastUsed).map(deviceView));
}

/** Forgets one device and ends every session on it: their tokens are refused at once. */
async function deleteDevice(call: CommonCall & { subject: string; params: { id: string } }) {
  const sub = call.subject;
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

/**
 * The device list and its removal, served under two paths: /uas (the endpoint pages'
 * path) and /apps (the permission table's path).
 */
function devicesAt(segment: "uas" | "apps", named: string) {
  const list = route({
    id: `devices.list-${segment}`,
    method: "GET",
    path: `/svc/api/v3/users/{subjectId}/${segment}`,
    version: "v3",
    auth: "bearer",
    permissions: { user: ["svc_api_uapps"], system: ["svc_api_sys_uapps"] },
    subject: { param: "subjectId", kind: "subjectId" },
    summary: `List remembered devices (interface §4.14; /${segment}: ${named})`,
    tags: ["devices"],
    request: { params: subjectIdParam },
    responses: {
      200: { description: "Devices (interface §2.7), most recently used first", schema: deviceList },
      401: { description: "bad_access_token", schema: v3Error },
      404: { description: "unknown_user", schema: v3Error },
    },
    handler: listDevices,
  });
  const remove = route({
    id: `devices.delete-${segment}`,
    method: "DELETE",
    path: `/svc/api/v3/users/{subjectId}/${segment}/{id}`,
    version: "v3",
    auth: "bearer",
    permissions: { user: ["svc_api_uapps_chg"], system: ["svc_api_sys_uapps_chg"] },
    subject: { param: "subjectId", kind: "subjectId" },
    userHeaders: true,
    event: { type: "device_delete", inTransaction: true },
    summary: "Forget a device and end its sessions (interface §4.14)",
    tags: ["devices"],
    request: { params: deviceParams },
    responses: {
      204: { description: "Forgotten; its tokens are refused at once" },
      401: { description: "bad_access_token", schema: v3Error },
      404: { description: "unknown_device", schema: v3Error },
    },
    handler: deleteDevice,
  });
  return [list, remove];
}

const sessionsReset = route({
  id: "devices.sessions-reset",
  method: "POST",
  path: "/svc/api/v3/users/{subjectId}/sessions/reset",
  version: "v3",
  auth: "bearer",
  permissions: { user: ["svc_api_usec_chg"], system: ["svc_api_sys_usec_chg"] },
  subject: { param: "subjectId", kind: "subjectId" },
  userHeaders: true,
  event: { type: "sessions_reset", inTransaction: true },
  summary: "End every session but the one of SVC-CI-UA-ID (interface §4.14)",
  description:
    "Access and refresh tokens of the ended sessions are refused at once. Devices stay remembered (DELETE .../uas/{id} forgets one). The permission table writes the path with {instanceId}; this route takes the subject id like the endpoint page.",
  tags: ["devices"],
  request: { params: subjectIdParam },
  responses: {
    204: { description: "Ended" },
    401: { description: "bad_access_token", schema: v3Error },
    404: { description: "unknown_user", schema: v3Error },
  },
  handler: async (call) => {
    const sub = call.subject;
    const keep = call.headers["svc-ci-ua-id"];
    const event = userCallEvent(call);
    const ended = await services().sessions.endSessionsAndDevices(
      sub,
      {
        session: (s) => keep === undefined || s.uaId !== keep,
        // A reset ends sessions; devices stay remembered (interface §4.14 lists them apart).
        device: () => false,
      },
      () => (event ? [services().events.putItem(event)] : []),
    );
    if (!ended.accountExists) throw problems.unknownUser(sub);
    return jsonResult(204, undefined);
  },
});

export const devicesRoutes = group("devices", [
  ...devicesAt("uas", "the endpoint pages' path"),
  ...devicesAt("apps", "the permission table's path"),
  sessionsReset,
]);
