import { problems } from "../errors";
import type { ConsentRepository, SessionRepository } from "../sessions/ports";
import { parseEventQuery } from "./event-query";
import type { SecurityEventLog } from "./ports";
import type { SecurityEvent } from "./security-event";

export interface AuditDeps {
  events: Pick<SecurityEventLog, "list">;
  consents: Pick<ConsentRepository, "list" | "remove">;
  sessions: Pick<SessionRepository, "endSessionsAndDevices">;
  /** audit.retentionDays: older events are gone, whether or not TTL has removed them yet. */
  retentionDays: number;
}

export type AuditUseCases = ReturnType<typeof auditUseCases>;

/** What an account's owner may see and undo of its history: security events and consents (interface §4.16). */
export function auditUseCases(deps: AuditDeps) {
  return {
    /** The events `rql` selects, newest first. */
    async events(sub: string, rql: string | undefined): Promise<SecurityEvent[]> {
      const query = parseEventQuery(rql);
      // Events past their retention may wait for TTL a while; they are not shown.
      const oldest = Date.now() - deps.retentionDays * 86_400_000;
      const from = Math.max(query.from ?? 0, oldest);
      const to = query.to ?? Date.now() + 60_000;
      return from > to ? [] : deps.events.list(sub, from, to, query.limit);
    },

    consents: (sub: string) => deps.consents.list(sub),

    /**
     * Withdraws a consent and ends that application's sessions: its tokens are refused at once.
     * Answers the application's client id.
     */
    async withdrawConsent(sub: string, id: string): Promise<string> {
      const clientId = await deps.consents.remove(sub, id);
      if (clientId === undefined) throw problems.unknownConsent();
      // The devices stay remembered.
      await deps.sessions.endSessionsAndDevices(sub, {
        session: (session) => session.clientId === clientId,
        device: () => false,
      });
      return clientId;
    },
  };
}
