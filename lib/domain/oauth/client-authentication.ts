import { parseBasic } from "../clients/basic-credentials";
import type { ClientRecord } from "../clients/client";
import type { ClientCredentialSource } from "../clients/credential-cache";
import { secretMatches } from "../credentials/secret-digest";
import { OAuthError } from "../errors";

export interface PresentedClient {
  id: string;
  /** Absent for a public client, which names itself with client_id alone (RFC 6749 2.1). */
  secret?: string;
}

/**
 * RFC 6749 2.3.1: HTTP Basic or client_id/client_secret in the form, never both. The
 * secret is compared by SHA-256 digest, which costs microseconds (docs/architecture.md).
 */
export function presentedClient(authorization: string | undefined, form: Record<string, unknown>): PresentedClient {
  const inForm = form.client_secret !== undefined;
  if (authorization) {
    if (inForm) throw new OAuthError("invalid_request", "use one client authentication method, not both");
    const basic = parseBasic(authorization);
    if (!basic) throw new OAuthError("invalid_client", "the Authorization header is not valid HTTP Basic");
    if (form.client_id !== undefined && form.client_id !== basic.id) {
      throw new OAuthError("invalid_request", "client_id does not match the authenticated client");
    }
    return basic;
  }
  if (typeof form.client_id === "string" && typeof form.client_secret === "string") {
    return { id: form.client_id, secret: form.client_secret };
  }
  if (typeof form.client_id === "string" && form.client_id !== "") return { id: form.client_id };
  throw new OAuthError("invalid_client", "client authentication is required");
}

/** The grant must be one the client was registered for (RFC 6749 5.2 unauthorized_client). */
export function requireGrant(client: ClientRecord, grantType: string): void {
  if (!client.grantTypes.includes(grantType))
    throw new OAuthError("unauthorized_client", `this client may not use grant_type ${grantType}`);
}

export async function authenticateClient(
  clients: ClientCredentialSource,
  presented: PresentedClient,
): Promise<ClientRecord> {
  const client = await clients.getWithSecrets(presented.id);
  // One answer for an unknown client and a wrong secret: nothing to enumerate. A public
  // client proves nothing here; PKCE binds its code instead.
  const authenticated =
    client !== undefined &&
    (presented.secret === undefined
      ? client.public
      : !client.public && secretMatches(presented.secret, client.secretHash));
  if (!client || !authenticated) {
    throw new OAuthError("invalid_client", "client authentication failed");
  }
  const { secretHash: _s, restPasswordHash: _r, ...record } = client;
  return record;
}
