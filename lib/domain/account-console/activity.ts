import type { AccountSecurityRepository } from "../accounts/ports";
import type { SecurityEventLog } from "../audit/ports";
import type { SecurityEvent } from "../audit/security-event";
import { type UserAgentDescriber, userAgentDescriber } from "../devices/device";
import { problems } from "../errors";
import type { SessionRepository } from "../sessions/ports";
import type { ConsoleActor } from "./sign-in-methods";

/**
 * The account console's recent activity (docs/account/activity.md): the account's own
 * security events of the last 30 days, newest first, a page at a time; and "This wasn't me",
 * which signs the account out everywhere and asks for a new password at the next sign-in.
 */

export const ACTIVITY_DAYS = 30;
/** Events on one page; the next page starts below the last one shown. */
export const ACTIVITY_PAGE = 20;

export interface ActivityDeps {
  events: Pick<SecurityEventLog, "list" | "putItem">;
  sessions: Pick<SessionRepository, "endSessionsAndDevices">;
  security: Pick<AccountSecurityRepository, "setModes">;
  /** audit.retentionDays: older events are gone, whether or not TTL has removed them yet. */
  retentionDays: number;
}

/** One event as the page words it: what, when, from where and with what. */
export interface ActivityEntry {
  /** Milliseconds since the epoch. */
  ts: number;
  type: string;
  /** `ok`, or why it was refused. */
  result: string;
  /** The application. */
  client: string;
  ip?: string;
  /** Browser and OS, parsed from the User-Agent as devices are (ua-parser-js). */
  browser?: string;
  /** Sign-in method and second step, when the event says. */
  method?: string;
  factor?: string;
}

export interface ActivityPage {
  entries: ActivityEntry[];
  /** The `before` of the next (older) page, when there is one. */
  older?: number;
}

function entryOf(event: SecurityEvent, describeUserAgent: UserAgentDescriber): ActivityEntry {
  const described = event.ua ? describeUserAgent(event.ua) : undefined;
  const known = described && described.tp !== "unknown";
  const method = event.prms?.method;
  const factor = event.prms?.factor;
  return {
    ts: event.ts,
    type: event.type,
    result: event.result,
    client: event.cId,
    ...(event.ip && { ip: event.ip }),
    ...(described && { browser: known ? described.name : event.ua?.slice(0, 60) }),
    ...(typeof method === "string" && { method }),
    ...(typeof factor === "string" && { factor }),
  };
}

export function activityUseCases(deps: ActivityDeps) {
  return {
    /**
     * Events of the last 30 days (or the retention, if shorter) before `before` (ms,
     * exclusive; now when absent), newest first. Events of the same millisecond as the
     * page's last stay on that page, so the next page, read below it, skips none.
     */
    async page(sub: string, before: number | undefined, nowMs: number): Promise<ActivityPage> {
      const days = Math.min(ACTIVITY_DAYS, deps.retentionDays);
      const from = nowMs - days * 86_400_000;
      const to = Math.min(before === undefined ? nowMs + 60_000 : before - 1, nowMs + 60_000);
      if (to < from) return { entries: [] };
      const found = await deps.events.list(sub, from, to, ACTIVITY_PAGE + 10);
      let shown = Math.min(ACTIVITY_PAGE, found.length);
      while (shown < found.length && found[shown].ts === found[shown - 1].ts) shown++;
      const describe = await userAgentDescriber();
      const entries = found.slice(0, shown).map((event) => entryOf(event, describe));
      const last = entries.at(-1);
      return { entries, ...(shown < found.length && last && { older: last.ts }) };
    },

    /**
     * "This wasn't me" (not a sensitive change: someone in danger must not be held up): a
     * new password is required at the next password sign-in, then every session of the
     * account ends, this browser's too, with the event in the same write. Devices stay known.
     */
    async notMe(sub: string, actor: ConsoleActor): Promise<{ sessions: number }> {
      const changed = await deps.security.setModes(sub, { needPasswordChange: true }, []);
      if (!changed) throw problems.unknownUser(sub);
      const ended = await deps.sessions.endSessionsAndDevices(
        sub,
        { session: () => true, device: () => false },
        (e) => [
          deps.events.putItem({
            ...actor,
            sbj: sub,
            type: "not_me",
            result: "ok",
            prms: { sessionsEnded: e.sessions, needPasswordChange: true },
          }),
        ],
      );
      return { sessions: ended.sessions };
    },
  };
}

export type ActivityUseCases = ReturnType<typeof activityUseCases>;
