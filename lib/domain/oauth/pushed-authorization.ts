import { randomBytes } from "node:crypto";
import type { ClientRecord } from "../clients/client";
import { OAuthError } from "../errors";
import {
  AUTHORIZATION_PARAMETERS,
  AuthorizationError,
  parseAuthorizationRequest,
  UntrustedRedirectError,
} from "../oidc/authorization-request";
import type { ResourceRepository } from "../resources/ports";
import type { PushedAuthorizationRepository } from "./ports";

/**
 * Pushed authorization requests (RFC 9126, docs/sign-in.md): the client posts the request's
 * parameters with its authentication and gets a request_uri, which the browser carries to
 * the authorization endpoint instead of the parameters.
 */

export const REQUEST_URI_PREFIX = "urn:ietf:params:oauth:request_uri:";
/** Long enough to send the browser on, short enough that a leaked request_uri is soon worthless (RFC 9126 2.2). */
export const PUSHED_REQUEST_TTL_SECONDS = 60;
/**
 * Marks a resolved pushed request inside the sealed interaction, so every hosted step can tell
 * it was pushed; the authorization endpoint drops it from what the browser sends.
 */
export const PUSHED_MARK = "pushed";

const REFERENCE = /^[A-Za-z0-9_-]{43}$/;

/** Whether a request_uri is of the form we hand out; any other is a request object by reference. */
export function isPushedRequestUri(requestUri: string | undefined): requestUri is string {
  return requestUri?.startsWith(REQUEST_URI_PREFIX) ?? false;
}

export interface PushedAuthorizationDeps {
  pushedRequests: Pick<PushedAuthorizationRepository, "create">;
  resources: Pick<ResourceRepository, "get">;
  /** The management API's resource identifier (the issuer). */
  ownResource: string;
}

/** The resource a request names, read only when it is someone else's (one GetItem). */
export async function requestedResource(
  resources: Pick<ResourceRepository, "get">,
  resource: string | undefined,
  own: string,
) {
  const registered = resource !== undefined && resource !== own ? await resources.get(resource) : undefined;
  return { registered, own };
}

/** The authorization request's own parameters of a form: client authentication stays out. */
function parametersOf(form: Readonly<Record<string, unknown>>, clientId: string): Record<string, string> {
  const params: Record<string, string> = {};
  for (const name of AUTHORIZATION_PARAMETERS) {
    const value = form[name];
    if (typeof value === "string") params[name] = value;
  }
  return { ...params, client_id: clientId };
}

/**
 * RFC 9126 2: checks the request as the authorization endpoint would, every refusal a JSON
 * error to the client (there is no browser to redirect), and stores it under a new request_uri.
 */
export async function pushAuthorizationRequest(
  deps: PushedAuthorizationDeps,
  client: ClientRecord,
  form: Readonly<Record<string, unknown>>,
  now: number,
) {
  if (form.client_id !== undefined && form.client_id !== client.clientId)
    throw new OAuthError("invalid_request", "client_id does not match the authenticated client");
  if (form.request_uri !== undefined)
    throw new OAuthError("invalid_request", "a pushed request cannot carry request_uri (RFC 9126 2.1)");
  const params = parametersOf(form, client.clientId);
  const resource = await requestedResource(deps.resources, params.resource, deps.ownResource);
  try {
    parseAuthorizationRequest(params, client, resource);
  } catch (error) {
    if (error instanceof UntrustedRedirectError)
      throw new OAuthError("invalid_request", "redirect_uri is missing or not registered for this client");
    if (error instanceof AuthorizationError) throw error.error;
    throw error;
  }
  const expiresAt = now + PUSHED_REQUEST_TTL_SECONDS;
  // 256 random bits: a clash is all but impossible, and the conditional write makes it a retry.
  for (let attempt = 0; attempt < 2; attempt++) {
    const reference = randomBytes(32).toString("base64url");
    if (await deps.pushedRequests.create({ reference, clientId: client.clientId, params, expiresAt }))
      return { request_uri: `${REQUEST_URI_PREFIX}${reference}`, expires_in: PUSHED_REQUEST_TTL_SECONDS };
  }
  throw new OAuthError("temporarily_unavailable", "the request could not be stored; try again");
}

/**
 * The pushed request a request_uri names, taken once for its client (RFC 9126 4): its
 * parameters marked as pushed, which the interaction then carries; an unknown, used,
 * expired or foreign one is an error page.
 */
export async function takePushedRequest(
  pushedRequests: Pick<PushedAuthorizationRepository, "take">,
  requestUri: string,
  clientId: string | undefined,
  now: number,
): Promise<Record<string, string>> {
  const reference = requestUri.slice(REQUEST_URI_PREFIX.length);
  // A malformed reference is unknown without a read (nor a key DynamoDB would refuse).
  const params =
    clientId && REFERENCE.test(reference) ? await pushedRequests.take(reference, clientId, now) : undefined;
  if (!params) throw new UntrustedRedirectError("unknown_request_uri");
  return { ...params, [PUSHED_MARK]: "1" };
}
