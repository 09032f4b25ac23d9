import { config } from "../config";
import { services } from "../container";
import { registerClient } from "../domain/clients/admin";
import type { ClientDefinition } from "../domain/clients/client";
import { ClientExistsError } from "../domain/clients/ports";
import type { ResourceRecord } from "../domain/resources/resource";

/** The registration access token of sample-agent, as events/clients/registration-*.json send it. */
export const SAMPLE_REGISTRATION_TOKEN = "sample-agent-registration-access-token-000000";

/**
 * The applications the sample events name (events/hosted, the federation bind), so those
 * events answer as they do for a registered application instead of the error page.
 * Third-party, so the sign-in sample goes on to the consent page the consent sample posts.
 */
export const SAMPLE_CLIENTS: readonly ClientDefinition[] = [
  {
    clientId: "sample-web",
    scopes: ["svc_api_sys_ufa"],
    redirectUris: ["https://app.example/fa-done"],
    postLogoutRedirectUris: ["https://app.example/"],
  },
  {
    // A client that registered itself (RFC 7591): the registration samples manage it with this token.
    clientId: "sample-agent",
    scopes: ["svc_api_user"],
    public: true,
    grantTypes: ["authorization_code", "refresh_token"],
    redirectUris: ["http://127.0.0.1:33418/callback"],
    registration: {
      via: "open",
      tokenEndpointAuthMethod: "none",
      clientName: "Sample Agent",
      keepUnusedSeconds: 7_776_000,
    },
    registrationToken: SAMPLE_REGISTRATION_TOKEN,
  },
];

/** The protected resource events/resources/*.json read, change and delete: an MCP server open to user consent. */
export const SAMPLE_RESOURCE: Omit<ResourceRecord, "createdAt" | "updatedAt"> = {
  uri: "https://notes.example/mcp",
  name: "Notes",
  scopes: [
    { name: "notes:read", description: "Read your notes" },
    { name: "notes:write", description: "Add notes" },
  ],
  consent: "user",
};

/**
 * Registers the sample clients (and the sample resource) that are missing (`npm start`, `npm run invoke`); one an
 * operator registered under the same id is left as it is. Only on a local table.
 */
export async function ensureSampleClients(): Promise<string[]> {
  // No endpoint: a local tool pointed at a deployed table (SVC_TARGET=aws).
  if (config().dynamodbEndpoint === undefined) return [];
  const added: string[] = [];
  for (const client of SAMPLE_CLIENTS) {
    try {
      await registerClient(services().clients, client);
      added.push(client.clientId);
    } catch (error) {
      if (!(error instanceof ClientExistsError)) throw error;
    }
  }
  const now = Math.floor(Date.now() / 1000);
  // False when it exists: one an operator changed stays as it is.
  await services().resources.create({ ...SAMPLE_RESOURCE, createdAt: now, updatedAt: now }, []);
  return added;
}
