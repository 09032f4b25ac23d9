import type { ClientRecord } from "../clients/client";
import { OAuthError } from "../errors";
import { isOidcScope } from "../permissions";
import type { ResourceRecord } from "./resource";

/**
 * What a token request's `resource` (RFC 8707) names, as the token and authorization
 * endpoints decide it: the management API (no resource, or its own identifier), a
 * registered resource, or an audience the operator listed on the client alone.
 */
export type Target =
  | { kind: "api" }
  | { kind: "listed"; audience: string }
  | { kind: "registered"; audience: string; resource: ResourceRecord };

/** Who the token is for: a user through a client (consent applies), or the client itself. */
export type Holder = "user" | "client";

const refuse = () => new OAuthError("invalid_target", "the client may not ask for this resource");

/**
 * RFC 8707 2.2: a resource the client may not ask for is refused, never ignored. A listed
 * resource is the operator's consent for that client; a resource open to user consent
 * admits any client on a user's behalf, never for the client alone.
 */
export function targetOf(
  client: Pick<ClientRecord, "resources">,
  uri: unknown,
  registered: ResourceRecord | undefined,
  holder: Holder,
  ownResource: string,
): Target {
  if (uri === undefined || uri === ownResource) return { kind: "api" };
  if (typeof uri !== "string") throw refuse();
  const listed = client.resources.includes(uri);
  if (registered) {
    if (listed || (holder === "user" && registered.consent === "user"))
      return { kind: "registered", audience: uri, resource: registered };
    throw refuse();
  }
  if (listed) return { kind: "listed", audience: uri };
  throw refuse();
}

/** The audience a token of this target carries; undefined: the management API's. */
export function audienceOf(target: Target): string | undefined {
  return target.kind === "api" ? undefined : target.audience;
}

/**
 * A registered resource defines its own scopes: a request for it may ask for those and the
 * OpenID Connect ones, nothing of ours (a permission of the management API means nothing there).
 */
export function resourceScopes(resource: ResourceRecord, requested: readonly string[]): string[] {
  const defined = new Set(resource.scopes.map((s) => s.name));
  const foreign = requested.filter((s) => !isOidcScope(s) && !defined.has(s));
  if (foreign.length > 0)
    throw new OAuthError("invalid_scope", "the scope names something the resource does not define");
  return [...requested];
}
