import type { SecurityEventLog } from "../audit/ports";
import type { SecurityEvent } from "../audit/security-event";
import { ApiError, problems } from "../errors";
import type { SessionRepository } from "../sessions/ports";
import type { DeviceRecord } from "./device";

export interface DeviceDeps {
  sessions: Pick<SessionRepository, "listDevices" | "devicesOfAccount" | "endSessionsAndDevices">;
  events: Pick<SecurityEventLog, "putItem">;
}

export type DeviceUseCases = ReturnType<typeof deviceUseCases>;

/** The devices an account signed in from, and the sessions on them (interface §4.14). */
export function deviceUseCases(deps: DeviceDeps) {
  const eventWrite = (event: SecurityEvent | undefined) => (event ? [deps.events.putItem(event)] : []);
  return {
    /**
     * Most recently used first. One Query: `accountKnown` (a user token's own account, read
     * with the session check) reads the devices alone; otherwise with the profile.
     */
    async list(sub: string, accountKnown: boolean): Promise<DeviceRecord[]> {
      let devices: DeviceRecord[];
      if (accountKnown) {
        devices = await deps.sessions.listDevices(sub);
      } else {
        const read = await deps.sessions.devicesOfAccount(sub);
        if (!read.accountExists) throw problems.unknownUser(sub);
        devices = read.devices;
      }
      return devices.sort((a, b) => b.lastUsed - a.lastUsed);
    },

    /** Forgets one device and ends every session on it: their tokens are refused at once. */
    async forget(sub: string, id: string, event: SecurityEvent | undefined): Promise<void> {
      const ended = await deps.sessions.endSessionsAndDevices(
        sub,
        { session: (s) => s.uaId === id, device: (d) => d.id === id },
        // An unknown device writes nothing: its refusal is recorded as such by the pipeline.
        ({ devices }) => (devices > 0 ? eventWrite(event) : []),
      );
      if (ended.devices === 0) {
        throw new ApiError(404, "input_error", "unknown_device", "the account has no device with this id", {
          pos: "id",
        });
      }
    },

    /** Ends every session but those on the device `keep` names; devices stay remembered. */
    async endOtherSessions(sub: string, keep: string | undefined, event: SecurityEvent | undefined): Promise<void> {
      const ended = await deps.sessions.endSessionsAndDevices(
        sub,
        { session: (s) => keep === undefined || s.uaId !== keep, device: () => false },
        () => eventWrite(event),
      );
      if (!ended.accountExists) throw problems.unknownUser(sub);
    },
  };
}
