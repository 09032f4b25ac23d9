import { httpsOrLoopback } from "../clients/client";
import { isOidcScope, permissionKind } from "../permissions";

/**
 * A protected resource (RFC 8707 `resource`, RFC 9728), registered once by an operator:
 * the audience its tokens carry, the scopes it defines, and who may let a client ask for it.
 */
export interface ResourceRecord {
  /** The resource indicator: the `aud` of its tokens. */
  uri: string;
  /** Shown on the consent page. */
  name: string;
  scopes: ResourceScope[];
  /**
   * `user`: any client may ask for it on a user's behalf, and the user consents (agents,
   * registered clients). `operator`: only clients listing it in their `resources` may ask.
   * Tokens of the client alone (client_credentials) always need the listing.
   */
  consent: ResourceConsent;
  createdAt: number;
  updatedAt: number;
}

export interface ResourceScope {
  name: string;
  /** What the consent page says of it; its name when absent. */
  description?: string;
}

export const RESOURCE_CONSENTS = ["user", "operator"] as const;
export type ResourceConsent = (typeof RESOURCE_CONSENTS)[number];

/** What an operator sends: the record without its times. */
export type ResourceDefinition = Omit<ResourceRecord, "createdAt" | "updatedAt">;

/** A resource's id in the admin API's paths: its URI, path-safe and reversible. */
export function resourceId(uri: string): string {
  return Buffer.from(uri, "utf8").toString("base64url");
}

export function resourceUriOf(id: string): string {
  return Buffer.from(id, "base64url").toString("utf8");
}

/** RFC 6749 3.3 scope-token, without the characters a qualified consent entry uses. */
const SCOPE_TOKEN = /^[\x21\x24-\x5B\x5D-\x7E]{1,128}$/;

/**
 * Problems of a definition, in plain words per field. `ownResource` is the management API's
 * identifier (the issuer): its tokens are ours to define.
 */
export function resourceDefinitionProblems(def: ResourceDefinition, ownResource: string) {
  const problems: { field: string; desc: string }[] = [];
  // RFC 8707 2: an absolute URI without a fragment; https, so its tokens never travel in clear.
  if (!httpsOrLoopback(def.uri))
    problems.push({ field: "uri", desc: "the resource is an https URL (http to a loopback host) without a fragment" });
  else if (def.uri.replace(/\/$/, "") === ownResource.replace(/\/$/, ""))
    problems.push({ field: "uri", desc: "this is the management API's own identifier" });
  const names = def.scopes.map((s) => s.name);
  for (const name of names) {
    if (!SCOPE_TOKEN.test(name))
      problems.push({ field: "scopes", desc: `a scope is 1-128 printable characters, no space, quote or #: ${name}` });
    // One meaning per word on a token: ours are ours, a resource's are its own.
    else if (isOidcScope(name) || permissionKind(name) !== undefined)
      problems.push({ field: "scopes", desc: `an OpenID Connect scope or a permission of ours: ${name}` });
  }
  if (new Set(names).size !== names.length) problems.push({ field: "scopes", desc: "a scope is named twice" });
  return problems;
}

/**
 * How a scope is kept in a consent (acls): a resource's own scopes carry its URI, so
 * allowing `read` on one resource never allows `read` on another.
 */
export function consentScope(scope: string, resource: string | undefined): string {
  if (!resource || isOidcScope(scope) || permissionKind(scope) !== undefined) return scope;
  return `${resource}#${scope}`;
}
