import type { SecurityEvent } from "../audit/security-event";
import type { DeviceUseCases } from "../devices/devices";
import type { ConsoleActor } from "./sign-in-methods";

export interface ConsoleDevicesDeps {
  devices: Pick<DeviceUseCases, "list" | "forget" | "endOtherSessions">;
}

/** A device as the section shows it. */
export interface ConsoleDevice {
  id: string;
  /** Browser (or app) and OS, as read from its User-Agent. */
  name: string;
  latestIp: string;
  createdAt: number;
  lastUsed: number;
  /** The device this browser is. */
  current: boolean;
}

/**
 * The account console's devices and sessions (docs/account.md): the devices the account
 * signed in from, and ending their sessions. Ending sessions only protects the account, so
 * none of it asks to confirm it's you. Each change records the security event the
 * management API records for it, in the same write (device_delete, sessions_reset).
 */
export function consoleDevicesUseCases(deps: ConsoleDevicesDeps) {
  const event = (sub: string, actor: ConsoleActor, type: string, prms: SecurityEvent["prms"]): SecurityEvent => ({
    ...actor,
    sbj: sub,
    type,
    result: "ok",
    prms,
  });
  return {
    /** Most recently used first; `current`: this browser's device (ua_id). */
    async view(sub: string, current: string | undefined): Promise<ConsoleDevice[]> {
      const devices = await deps.devices.list(sub, true);
      return devices.map((d) => ({
        id: d.id,
        name: d.name,
        latestIp: d.latestIp,
        createdAt: d.createdAt,
        lastUsed: d.lastUsed,
        current: d.id === current,
      }));
    },

    /**
     * Forgets one of the account's devices and ends every session on it (applications'
     * tokens too); another account's device is unknown here (404 unknown_device). Answers
     * whether it was this browser's own device, whose browser session has then ended too.
     */
    async signOut(sub: string, id: string, current: string | undefined, actor: ConsoleActor): Promise<boolean> {
      await deps.devices.forget(sub, id, event(sub, actor, "device_delete", { device: id }));
      return id === current;
    },

    /** Ends every session on the account's other devices, as SVC-CI-UA-ID does; devices stay remembered. */
    signOutOthers: (sub: string, current: string, actor: ConsoleActor) =>
      deps.devices.endOtherSessions(sub, current, event(sub, actor, "sessions_reset", { kept: current })),
  };
}

export type ConsoleDevicesUseCases = ReturnType<typeof consoleDevicesUseCases>;
