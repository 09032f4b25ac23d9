import type { PendingWrite } from "../unit-of-work";
import type { SecurityEvent } from "./security-event";

export interface SecurityEventLog {
  /** The event as part of a commit the call makes anyway. */
  putItem(event: SecurityEvent): PendingWrite;
  record(event: SecurityEvent): Promise<void>;
  /** Events of [from, to] in ms, newest first. */
  list(sub: string, from: number, to: number, limit: number): Promise<SecurityEvent[]>;
}
