import { deviceView } from "../domain/devices/device";
import type { DeviceUseCases } from "../domain/devices/devices";
import { jsonResult } from "../http/error-body";
import { userCallEvent } from "../http/middleware/security-event";
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
 * The device list and its removal, served under two paths: /uas (the endpoint pages'
 * path) and /apps (the permission table's path).
 */
function devicesAt(devices: DeviceUseCases, segment: "uas" | "apps", named: string) {
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
    handler: async (call) => {
      const list = await devices.list(call.subject, call.account?.sub === call.subject);
      return jsonResult(200, list.map(deviceView));
    },
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
    handler: async (call) => {
      await devices.forget(call.subject, call.params.id, userCallEvent(call));
      return jsonResult(204, undefined);
    },
  });
  return [list, remove];
}

const sessionsReset = (devices: DeviceUseCases) =>
  route({
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
      await devices.endOtherSessions(call.subject, call.headers["svc-ci-ua-id"], userCallEvent(call));
      return jsonResult(204, undefined);
    },
  });

export const devicesRoutes = (devices: DeviceUseCases) =>
  group("devices", [
    ...devicesAt(devices, "uas", "the endpoint pages' path"),
    ...devicesAt(devices, "apps", "the permission table's path"),
    sessionsReset(devices),
  ]);
