import { BUILT_IN_CLIENT_IDS, builtInClient, type ClientRecord, NO_SECRET } from "../clients/client";
import type { ClientCredentialSource } from "../clients/credential-cache";
import type { ClientRepository } from "../clients/ports";

/**
 * The admin console (docs/console.md) as an OAuth client: public (PKCE, no secret in the
 * browser), first-party, built in rather than stored, so every stack has it and nobody can
 * change or delete it. Its tokens act with an operator's authority (./operator.ts).
 */

export const OPERATOR_CONSOLE_CLIENT = BUILT_IN_CLIENT_IDS.console;

/** The scope the console asks for; no other client may be granted it. */
export const OPERATOR_SCOPE = "svc_console";

export function operatorConsoleClient(consoleUri: string): ClientRecord & { secretHash: string } {
  const powers = { scopes: [OPERATOR_SCOPE], redirectUris: [consoleUri], postLogoutRedirectUris: [consoleUri] };
  return {
    ...builtInClient(OPERATOR_CONSOLE_CLIENT, { ...powers, grantTypes: ["authorization_code", "refresh_token"] }),
    secretHash: NO_SECRET,
  };
}

/** The OAuth endpoints' clients, the console's among them. */
export function withOperatorConsole(source: ClientCredentialSource, consoleUri: string): ClientCredentialSource {
  const console = operatorConsoleClient(consoleUri);
  return {
    getWithSecrets: (clientId) =>
      clientId === OPERATOR_CONSOLE_CLIENT ? Promise.resolve(console) : source.getWithSecrets(clientId),
  };
}

/** A client repository's reads, the console's record among them (logout, connected applications). */
export function withOperatorConsoleRecord<T extends Pick<ClientRepository, "get">>(
  clients: T,
  consoleUri: string,
): Pick<ClientRepository, "get"> {
  const console = operatorConsoleClient(consoleUri);
  return {
    get: (clientId) => (clientId === OPERATOR_CONSOLE_CLIENT ? Promise.resolve(console) : clients.get(clientId)),
  };
}
