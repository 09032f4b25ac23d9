import type { AuditUseCases } from "../audit/audit";
import type { SecurityEventLog } from "../audit/ports";
import type { ClientRecord } from "../clients/client";
import type { ClientRepository } from "../clients/ports";
import type { ConsoleActor } from "./sign-in-methods";

export interface ConnectedAppsDeps {
  audit: Pick<AuditUseCases, "consents" | "withdrawConsent">;
  clients: Pick<ClientRepository, "getMany">;
  events: Pick<SecurityEventLog, "record">;
}

/** An application the user granted access to, as the section shows it. */
export interface ConnectedApp {
  /** The consent's id. */
  id: string;
  clientId: string;
  /** The name the application registered under, else its client id. */
  name: string;
  /** For an application that registered itself: the host it sends the browser back to, as the consent page named it. */
  host?: string;
  /** As granted, accumulated over its sign-ins (a resource's own scopes carry its URI: `<uri>#<scope>`). */
  scopes: string[];
  /** Milliseconds since the epoch of the latest grant. */
  granted: number;
}

function hostOf(client: ClientRecord | undefined): string | undefined {
  if (!client?.registration) return undefined;
  const where = client.registration.via === "document" ? client.clientId : client.redirectUris[0];
  try {
    return where ? new URL(where).host : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The account console's connected applications (docs/account.md): the consents the user
 * granted, and withdrawing one, which ends that application's sessions at once, as the
 * management API's DELETE .../acls/{id} does (security event consent_withdraw).
 */
export function connectedAppsUseCases(deps: ConnectedAppsDeps) {
  return {
    /** Most recently granted first. */
    async view(sub: string): Promise<ConnectedApp[]> {
      const consents = await deps.audit.consents(sub);
      const clients = await deps.clients.getMany(consents.map((c) => c.client_id));
      return consents.map((c) => {
        const client = clients.get(c.client_id);
        const host = hostOf(client);
        return {
          id: c.id,
          clientId: c.client_id,
          name: client?.registration?.clientName ?? c.client_id,
          ...(host && { host }),
          scopes: c.scopes,
          granted: c.updated,
        };
      });
    },

    /** Another account's consent is unknown here (404 unknown_consent). */
    async remove(sub: string, id: string, actor: ConsoleActor): Promise<void> {
      const clientId = await deps.audit.withdrawConsent(sub, id);
      await deps.events.record({
        ...actor,
        sbj: sub,
        type: "consent_withdraw",
        result: "ok",
        prms: { consent: id, client: clientId },
      });
    },
  };
}

export type ConnectedAppsUseCases = ReturnType<typeof connectedAppsUseCases>;
