import { type ClientRecord, GRANT, redirectSchemeAllowed } from "../clients/client";
import { OAuthError } from "../errors";
import { GROUP_ID_PATTERN } from "../groups/group";
import type { ResourceRecord } from "../resources/resource";
import { audienceOf, type Target, targetOf } from "../resources/target";
import { parseClaimsRequest, type RequestedClaims } from "./claims-request";
import { authorizationScopes } from "./scopes";

/** A checked authorization request (RFC 6749 4.1.1, OIDC Core 3.1.2.1, RFC 7636, RFC 8707). */
export interface AuthorizationRequest {
  clientId: string;
  redirectUri: string;
  scopes: string[];
  state?: string;
  nonce?: string;
  codeChallenge?: string;
  prompt: Array<"none" | "login" | "consent">;
  maxAge?: number;
  loginHint?: string;
  uiLocales?: string;
  idTokenHint?: string;
  /** The audience its tokens carry (RFC 8707); absent: the management API's. */
  resource?: string;
  /** What `resource` names: the consent page shows a registered resource and its scopes. */
  target: Target;
  /** Claims named one by one (OIDC Core 5.5), beside those the scopes release. */
  claims?: RequestedClaims;
  /** How the answer reaches the client: in the redirect's query, or posted by the browser (OAuth 2.0 Form Post). */
  responseMode: ResponseMode;
  /** RFC 9449 10: the thumbprint of the key the code's exchange must prove with DPoP. */
  dpopJkt?: string;
  /** A device authorization (RFC 8628) the user answers: the answer goes to the device, not to a redirect. */
  device?: { userCode: string };
  /** A sign-in to the account console: it ends on the console, with no code (lib/domain/account-console/console-client.ts). */
  console?: true;
  /** An organization invitation's link token: the sign-in (or registration) ends by accepting it, with no code. */
  invitation?: string;
  /** The organization the tokens act for (`organization=<id>`, DESIGN 6b): the user must be a member. */
  organization?: string;
}

export type ResponseMode = "query" | "form_post";
const RESPONSE_MODES: readonly string[] = ["query", "form_post"] satisfies ResponseMode[];

/**
 * The client or the redirect URI cannot be trusted: the user sees an error page and is
 * never sent anywhere (RFC 6749 4.1.2.1, no open redirect).
 */
export class UntrustedRedirectError extends Error {
  constructor(readonly problem: "unknown_client" | "bad_redirect_uri" | "unknown_user_code" | "unknown_request_uri") {
    super(problem);
    this.name = "UntrustedRedirectError";
  }
}

/** An error the client hears at its redirect URI (RFC 6749 4.1.2.1). */
export class AuthorizationError extends Error {
  constructor(
    readonly error: OAuthError,
    readonly redirectUri: string,
    readonly state: string | undefined,
    readonly responseMode: ResponseMode = "query",
  ) {
    super(error.message);
    this.name = "AuthorizationError";
  }
}

/** The refusal of a checked request, answered the way the request asked. */
export function refusalOf(request: AuthorizationRequest, error: OAuthError): AuthorizationError {
  return new AuthorizationError(error, request.redirectUri, request.state, request.responseMode);
}

/** The parameters an authorization request may send, read as text (the endpoint's query, a pushed request's form). */
export const AUTHORIZATION_PARAMETERS = [
  "response_type",
  "client_id",
  "redirect_uri",
  "scope",
  "state",
  "nonce",
  "code_challenge",
  "code_challenge_method",
  "prompt",
  "max_age",
  "login_hint",
  "ui_locales",
  "id_token_hint",
  "resource",
  "claims",
  "response_mode",
  "request",
  "request_uri",
  "dpop_jkt",
  "organization",
] as const;

const LIMITS = { state: 1024, nonce: 512, loginHint: 256, uiLocales: 64, idTokenHint: 4096 } as const;
const PKCE_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
/** A SHA-256 JWK thumbprint, base64url (RFC 7638). */
const JWK_THUMBPRINT = /^[A-Za-z0-9_-]{43}$/;
const ORGANIZATION_ID = new RegExp(GROUP_ID_PATTERN);

function text(query: Readonly<Record<string, string | undefined>>, name: string, max: number): string | undefined {
  const value = query[name];
  if (value === undefined || value === "") return undefined;
  if (value.length > max) throw new OAuthError("invalid_request", `${name} is too long`);
  return value;
}

/** The resource the request names, as registered (undefined when it is not), and the management API's identifier. */
export interface RequestedResource {
  registered?: ResourceRecord;
  own: string;
}

/**
 * Checks an authorization request against its client. The client and the redirect URI
 * are checked first, and a failure there is an UntrustedRedirectError; every later
 * failure is an AuthorizationError sent back to that redirect URI.
 */
export function parseAuthorizationRequest(
  query: Readonly<Record<string, string | undefined>>,
  client: ClientRecord | undefined,
  resource: RequestedResource,
): AuthorizationRequest {
  if (!client || query.client_id !== client.clientId) throw new UntrustedRedirectError("unknown_client");
  const redirectUri = query.redirect_uri;
  // Exact string match (RFC 9700 2.1): no prefixes, no wildcards, no normalisation.
  // The scheme again: a record stored before the allow-list may hold a script scheme.
  if (redirectUri === undefined || !client.redirectUris.includes(redirectUri) || !redirectSchemeAllowed(redirectUri))
    throw new UntrustedRedirectError("bad_redirect_uri");
  const state = query.state !== undefined && query.state.length <= LIMITS.state ? query.state : undefined;
  // The answer, errors included, goes back the way the request asked, once that is a mode we speak.
  const responseMode = query.response_mode === "form_post" ? "form_post" : "query";
  try {
    return { ...checked(query, client, redirectUri, resource), responseMode };
  } catch (error) {
    if (error instanceof OAuthError) throw new AuthorizationError(error, redirectUri, state, responseMode);
    throw error;
  }
}

function checked(
  query: Readonly<Record<string, string | undefined>>,
  client: ClientRecord,
  redirectUri: string,
  resource: RequestedResource,
): Omit<AuthorizationRequest, "responseMode"> {
  // Core 6.1 and 6.2 name one refusal for each way a request object comes.
  if (query.request !== undefined) throw new OAuthError("request_not_supported", "request objects are not supported");
  if (query.request_uri !== undefined)
    throw new OAuthError("request_uri_not_supported", "request objects by reference are not supported");
  if (query.response_type !== "code")
    throw new OAuthError("unsupported_response_type", "only response_type=code is supported");
  if (query.response_mode !== undefined && !RESPONSE_MODES.includes(query.response_mode))
    throw new OAuthError("invalid_request", "response_mode may be query or form_post");
  if (!client.grantTypes.includes(GRANT.authorizationCode))
    throw new OAuthError("unauthorized_client", "the client may not use the authorization code flow");
  const target = targetOf(client, query.resource, resource.registered, "user", resource.own);
  const scopes = authorizationScopes(client, query.scope, target);

  const challenge = query.code_challenge;
  const method = query.code_challenge_method;
  if (challenge === undefined) {
    if (client.public) throw new OAuthError("invalid_request", "PKCE is required: send code_challenge (S256)");
    if (method !== undefined) throw new OAuthError("invalid_request", "code_challenge_method without code_challenge");
  } else {
    if (method !== "S256") throw new OAuthError("invalid_request", "code_challenge_method must be S256");
    if (!PKCE_CHALLENGE.test(challenge)) throw new OAuthError("invalid_request", "code_challenge is not an S256 value");
  }

  const prompt = (query.prompt ?? "").split(" ").filter(Boolean);
  for (const value of prompt) {
    if (value !== "none" && value !== "login" && value !== "consent")
      throw new OAuthError("invalid_request", "prompt may only hold none, login and consent");
  }
  if (prompt.includes("none") && prompt.length > 1)
    throw new OAuthError("invalid_request", "prompt=none cannot be combined with other values");

  const dpopJkt = query.dpop_jkt;
  if (dpopJkt !== undefined && !JWK_THUMBPRINT.test(dpopJkt))
    throw new OAuthError("invalid_request", "dpop_jkt must be a SHA-256 JWK thumbprint (base64url)");

  const organization = query.organization;
  if (organization !== undefined && !ORGANIZATION_ID.test(organization))
    throw new OAuthError("invalid_request", "organization must be an organization's id");

  let maxAge: number | undefined;
  if (query.max_age !== undefined) {
    maxAge = Number(query.max_age);
    if (!/^\d{1,10}$/.test(query.max_age)) throw new OAuthError("invalid_request", "max_age must be a whole number");
  }
  return {
    clientId: client.clientId,
    redirectUri,
    scopes,
    state: text(query, "state", LIMITS.state),
    nonce: text(query, "nonce", LIMITS.nonce),
    codeChallenge: challenge,
    prompt: prompt as AuthorizationRequest["prompt"],
    maxAge,
    loginHint: text(query, "login_hint", LIMITS.loginHint),
    uiLocales: text(query, "ui_locales", LIMITS.uiLocales),
    idTokenHint: text(query, "id_token_hint", LIMITS.idTokenHint),
    resource: audienceOf(target),
    target,
    claims: parseClaimsRequest(query.claims),
    ...(dpopJkt !== undefined && { dpopJkt }),
    ...(organization !== undefined && { organization }),
  };
}

/** The redirect that carries an error or a code back to the client, with its state. */
export function redirectWith(redirectUri: string, params: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, value);
  return url.toString();
}
