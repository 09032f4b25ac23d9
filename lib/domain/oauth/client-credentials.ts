import type { ClientRecord } from "../clients/client";
import { OAuthError } from "../errors";
import { describeRequested, parseScope, permissionKind } from "../permissions";
import type { ResourceRepository } from "../resources/ports";
import { audienceOf, resourceScopes, targetOf } from "../resources/target";
import type { AccessTokenIssuer } from "./ports";

export interface TokenResponse {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  scope: string;
}

export interface ClientCredentialsDeps {
  tokens: AccessTokenIssuer;
  resources: Pick<ResourceRepository, "get">;
  /** The management API's resource identifier (the issuer). */
  ownResource: string;
  ttlSeconds: number;
}

/**
 * client_credentials (interface §5.2): a system token for permissions granted to the
 * application. User permissions need a user, so they are refused here. With `resource`
 * (one the operator listed on the client) the token is for that resource server, with
 * that resource's own scopes when it is registered.
 */
export async function clientCredentialsGrant(
  deps: ClientCredentialsDeps,
  client: ClientRecord,
  scope: unknown,
  resource?: unknown,
): Promise<TokenResponse> {
  // Only a listed resource can pass, so only those are read.
  const listed = typeof resource === "string" && client.resources.includes(resource);
  const registered = listed ? await deps.resources.get(resource) : undefined;
  const target = targetOf(client, resource, registered, "client", deps.ownResource);
  if (typeof scope !== "string" || parseScope(scope).length === 0) {
    throw new OAuthError("invalid_scope", "scope is required: one or more space-separated permissions");
  }
  const requested = parseScope(scope);
  if (target.kind === "registered")
    return issue(deps, client, resourceScopes(target.resource, requested), target.audience);
  const userOnly = requested.filter((s) => permissionKind(s) === "user");
  if (userOnly.length > 0) {
    throw new OAuthError("invalid_scope", `user permissions need the password grant: ${describeRequested(userOnly)}`);
  }
  const notGranted = requested.filter((s) => !client.scopes.includes(s));
  if (notGranted.length > 0) {
    throw new OAuthError("invalid_scope", `not granted to this client: ${describeRequested(notGranted)}`);
  }
  return issue(deps, client, requested, audienceOf(target));
}

async function issue(deps: ClientCredentialsDeps, client: ClientRecord, scopes: string[], audience?: string) {
  const { token } = await deps.tokens.issue({
    sub: client.clientId,
    clientId: client.clientId,
    scopes,
    ttlSeconds: deps.ttlSeconds,
    ...(audience !== undefined && { audience }),
  });
  const answer: TokenResponse = {
    access_token: token,
    token_type: "Bearer",
    expires_in: deps.ttlSeconds,
    scope: scopes.join(" "),
  };
  return answer;
}
