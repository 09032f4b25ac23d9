import { servedRoutes } from "../lib/compiled/audit-routes";
import { config } from "../lib/config";
import { parseEventQuery } from "../lib/domain/audit/event-query";
import { eventView, type UaForm } from "../lib/domain/audit/event-view";
import type { SecurityEvent } from "../lib/domain/audit/security-event";
import { problems } from "../lib/domain/errors";
import { type AlongKeys, besideKeysFor, readMadeFor } from "../lib/http/along-session";
import { jsonResult } from "../lib/http/error-body";
import { createApiFunction } from "../lib/http/pipeline";
import { services } from "../lib/services";

async function readEvents(sub: string, rql: string | undefined): Promise<SecurityEvent[]> {
  const query = parseEventQuery(rql);
  // Events past their retention may wait for TTL a while; they are not shown.
  const oldest = Date.now() - config().settings.audit.retentionDays * 86_400_000;
  const from = Math.max(query.from ?? 0, oldest);
  const to = query.to ?? Date.now() + 60_000;
  return from > to ? [] : services().events.list(sub, from, to, query.limit);
}

/** A cold container reads the events beside the signing keys; a query refused later is read by the route. */
const eventsTag = (sub: string, rql: string | undefined) => `${sub}\n${rql ?? ""}`;

const eventsBesideKeys: AlongKeys = ({ subject, query }) => {
  if (subject === undefined) return undefined;
  try {
    parseEventQuery(query.rql);
  } catch {
    return undefined;
  }
  return besideKeysFor(eventsTag(subject, query.rql), () => readEvents(subject, query.rql));
};

export const handler = createApiFunction(
  "audit",
  servedRoutes,
  {
    "audit.events": async (call) => {
      const sub = call.subject as string;
      const early = readMadeFor<SecurityEvent[]>(call.alongSession, eventsTag(sub, call.query.rql));
      const events = early ? early.value : await readEvents(sub, call.query.rql);
      return jsonResult(
        200,
        events.map((event) => eventView(event, (call.query.ua as UaForm | undefined) ?? "raw")),
      );
    },

    "audit.acls-list": async (call) => jsonResult(200, await services().consents.list(call.subject as string)),

    "audit.acls-delete": async (call) => {
      const sub = call.subject as string;
      const clientId = await services().consents.remove(sub, call.params.id as string);
      if (clientId === undefined) throw problems.unknownConsent();
      // Its sessions end, so its tokens are refused at once; the devices stay remembered.
      await services().sessions.endSessionsAndDevices(sub, {
        session: (session) => session.clientId === clientId,
        device: () => false,
      });
      return jsonResult(204, undefined);
    },
  },
  { alongKeys: { "audit.events": eventsBesideKeys } },
);
