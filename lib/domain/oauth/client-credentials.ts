import type { ClientRecord } from "../clients/client";
import { OAuthError } from "../errors";
import { describeRequested, parseScope, permissionKind } from "../permissions";
import type { AccessTokenIssuer } from "./ports";

export interface TokenResponse {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  scope: string;
}

/**
 * client_credentials (interface §5.2): a system token for permissions granted to the
 * application. User permissions need a user, so they are refused here. With `resource`
 * (one of the client's registered resources) the token is for that resource server.
 */
export async function clientCredentialsGrant(
  tokens: AccessTokenIssuer,
  client: ClientRecord,
  scope: unknown,
  ttlSeconds: number,
  resource?: unknown,
): Promise<TokenResponse> {
  // RFC 8707 2.2: a resource the client may not ask for is refused, never ignored.
  if (resource !== undefined && (typeof resource !== "string" || !client.resources.includes(resource))) {
    throw new OAuthError("invalid_target", "the resource is not registered for this client");
  }
  if (typeof scope !== "string" || parseScope(scope).length === 0) {
    throw new OAuthError("invalid_scope", "scope is required: one or more space-separated permissions");
  }
  const requested = parseScope(scope);
  const userOnly = requested.filter((s) => permissionKind(s) === "user");
  if (userOnly.length > 0) {
    throw new OAuthError("invalid_scope", `user permissions need the password grant: ${describeRequested(userOnly)}`);
  }
  const notGranted = requested.filter((s) => !client.scopes.includes(s));
  if (notGranted.length > 0) {
    throw new OAuthError("invalid_scope", `not granted to this client: ${describeRequested(notGranted)}`);
  }
  const { token } = await tokens.issue({
    sub: client.clientId,
    clientId: client.clientId,
    scopes: requested,
    ttlSeconds,
    ...(resource !== undefined && { audience: resource }),
  });
  return { access_token: token, token_type: "Bearer", expires_in: ttlSeconds, scope: requested.join(" ") };
}
