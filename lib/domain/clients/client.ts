import { randomBytes } from "node:crypto";
import { digestSecret, generateSecret } from "../credentials/secret-digest";
import { isOidcScope, permissionKind } from "../permissions";

/** The grants of the token endpoint (interface §5.2, docs/sign-in.md). */
export const GRANT = {
  authorizationCode: "authorization_code",
  refreshToken: "refresh_token",
  clientCredentials: "client_credentials",
  password: "password",
  qr: "urn:svc:params:oauth:grant-type:qr",
  /** RFC 8628: a device without a browser; the user approves on another one. */
  deviceCode: "urn:ietf:params:oauth:grant-type:device_code",
  /** RFC 8693: a client trades a token it holds for a narrower one (impersonation, delegation). */
  tokenExchange: "urn:ietf:params:oauth:grant-type:token-exchange",
} as const;
export const GRANT_TYPES: readonly string[] = Object.values(GRANT);

/** New clients: everything but the password grant, which RFC 9700 says not to use unless asked for. */
export const DEFAULT_GRANT_TYPES = [GRANT.authorizationCode, GRANT.refreshToken, GRANT.clientCredentials, GRANT.qr];
/** Clients stored before grant types were recorded keep the grants they had then. */
export const LEGACY_GRANT_TYPES = [GRANT.clientCredentials, GRANT.password, GRANT.refreshToken, GRANT.qr];
/** A public client holds no secret: it may only sign users in through the browser with PKCE. */
export const PUBLIC_GRANT_TYPES: readonly string[] = [GRANT.authorizationCode, GRANT.refreshToken];
/** What a public client may be given: a user approves each device flow in a browser, as with PKCE. */
const PUBLIC_MAY_USE: readonly string[] = [...PUBLIC_GRANT_TYPES, GRANT.deviceCode];

/** How its ID tokens are signed (id_token_signed_response_alg): RS256 unless it registered ES256. */
export const ID_TOKEN_ALGS = ["RS256", "ES256"] as const;
export type IdTokenAlg = (typeof ID_TOKEN_ALGS)[number];
export const DEFAULT_ID_TOKEN_ALG: IdTokenAlg = "RS256";

/** RFC 7591 2: how a registered client authenticates at the token endpoint. */
export const REGISTERED_AUTH_METHODS = ["client_secret_basic", "client_secret_post", "none"] as const;
export type RegisteredAuthMethod = (typeof REGISTERED_AUTH_METHODS)[number];

/** What a client that registered itself (RFC 7591) said of itself, and how it was let in. */
export interface ClientRegistration {
  /**
   * open: under the registration policy alone; token: with an operator's initial access
   * token; document: never stored, read from its client ID metadata document.
   */
  via: "open" | "token" | "document";
  tokenEndpointAuthMethod: RegisteredAuthMethod;
  clientName?: string;
  clientUri?: string;
  logoUri?: string;
  tosUri?: string;
  policyUri?: string;
  contacts?: string[];
  softwareId?: string;
  softwareVersion?: string;
  /** It is removed once unused this long: each token it gets moves `expiresAt` on. */
  keepUnusedSeconds: number;
}

export const DAY_SECONDS = 86_400;

/**
 * When a registered client gets tokens, the time it now stays until, at most once a day:
 * its removal moves on by the unused time it registered under. Other clients never expire.
 */
export function keepAliveDue(
  client: Pick<ClientRecord, "registration" | "expiresAt">,
  now: number,
): number | undefined {
  const keep = client.registration?.keepUnusedSeconds;
  if (keep === undefined || client.expiresAt === undefined) return undefined;
  return client.expiresAt - now < keep - DAY_SECONDS ? now + keep : undefined;
}

/** An application allowed to call the service (interface §5.2, 5.4). */
export interface ClientRecord {
  clientId: string;
  /** Permissions the client may obtain (interface §5.3). */
  scopes: string[];
  /** Where the authorization endpoint may send the browser back (exact match). */
  redirectUris: string[];
  /** Whether a v1/v2 REST password is set (interface §5.4). */
  hasRestPassword: boolean;
  /** No secret: authenticates with PKCE alone (token_endpoint_auth_method none). */
  public: boolean;
  grantTypes: string[];
  /** Where RP-initiated logout may send the browser afterwards. */
  postLogoutRedirectUris: string[];
  /** Audiences (RFC 8707 `resource`) its access tokens may carry besides the default. */
  resources: string[];
  /**
   * Token exchange (RFC 8693): the audiences of subject tokens it may exchange besides its own
   * tokens; the issuer stands for the management API.
   */
  exchangeFrom: string[];
  /** Ours: the hosted pages skip the consent screen. */
  firstParty: boolean;
  idTokenSignedResponseAlg: IdTokenAlg;
  /** RFC 9449 5.2 dpop_bound_access_tokens: every token request must carry a DPoP proof. */
  dpopBoundAccessTokens: boolean;
  /** OIDC Back-Channel Logout: where logout tokens are posted when its user's sessions end; in a change, "" removes it. */
  backchannelLogoutUri?: string;
  /**
   * Its back end relays every user's sign-in with the user's address in X-Forwarded-For:
   * password guesses then count against that address alone, not the server's.
   */
  trustRelayedAddress: boolean;
  /** RFC 9126 6 (require_pushed_authorization_requests): its authorization requests must come by request_uri. */
  requirePushedAuthorizationRequests: boolean;
  /** Written by `npm start` from SVC_BOOTSTRAP_CLIENT_*, again on every start: the admin API leaves it alone. */
  bootstrap: boolean;
  /** Set when the client registered itself (RFC 7591): always third-party. */
  registration?: ClientRegistration;
  /** Epoch seconds after which it is gone (a registered client unused that long). */
  expiresAt?: number;
  createdAt: number;
  updatedAt: number;
}

/** What the admin API may change on a stored client (interface §4.17). */
export const CHANGEABLE_FIELDS = [
  "scopes",
  "grantTypes",
  "redirectUris",
  "postLogoutRedirectUris",
  "resources",
  "exchangeFrom",
  "firstParty",
  "trustRelayedAddress",
  "requirePushedAuthorizationRequests",
  "idTokenSignedResponseAlg",
  "dpopBoundAccessTokens",
  "backchannelLogoutUri",
] as const;
export type ClientChange = Partial<Pick<ClientRecord, (typeof CHANGEABLE_FIELDS)[number]>>;

/** Stored digests, never the secrets themselves. */
export interface ClientSecrets {
  secretHash: string;
  restPasswordHash?: string;
  /** RFC 7592: the digest of the registration access token a registered client manages itself with. */
  registrationTokenHash?: string;
}

/** The stored "digest" of a public client: no SHA-256 digest has this form. */
export const NO_SECRET = "none";

/** Below this, an operator-chosen secret is guessable offline from its SHA-256 digest. */
export const MIN_SECRET_LENGTH = 32;

/**
 * Short operator-chosen secrets are accepted (scripts and test rigs use them) but
 * reported, since only generated 256-bit secrets make a plain digest safe.
 */
export function weakSecretWarnings(def: ClientDefinition): string[] {
  const warnings: string[] = [];
  if (def.secret !== undefined && def.secret.length < MIN_SECRET_LENGTH) {
    warnings.push(
      `the client secret is shorter than ${MIN_SECRET_LENGTH} characters; leave it out to get a generated one`,
    );
  }
  if (def.restPassword !== undefined && def.restPassword.length < MIN_SECRET_LENGTH) {
    warnings.push(`the REST password is shorter than ${MIN_SECRET_LENGTH} characters`);
  }
  return warnings;
}

/** The service's own clients (the account and admin consoles), built in, never stored: their ids are taken. */
export const BUILT_IN_CLIENT_IDS = { account: "svc-account", console: "svc-console" } as const;

/** A client of ours that lives in code: public, first-party, nothing stored or changeable. */
export function builtInClient(
  clientId: (typeof BUILT_IN_CLIENT_IDS)[keyof typeof BUILT_IN_CLIENT_IDS],
  powers: Pick<ClientRecord, "scopes" | "grantTypes" | "redirectUris" | "postLogoutRedirectUris">,
): ClientRecord {
  return {
    clientId,
    ...powers,
    hasRestPassword: false,
    public: true,
    resources: [],
    exchangeFrom: [],
    firstParty: true,
    idTokenSignedResponseAlg: "ES256",
    dpopBoundAccessTokens: false,
    trustRelayedAddress: false,
    requirePushedAuthorizationRequests: false,
    bootstrap: false,
    createdAt: 0,
    updatedAt: 0,
  };
}

export const CLIENT_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._~-]{0,127}$/;

/** An id for a client registered without one: 80 random bits are unique without a counter to read. */
export function newClientId(): string {
  return randomBytes(10).toString("hex");
}

export interface ClientDefinition {
  clientId: string;
  secret?: string;
  scopes: string[];
  redirectUris?: string[];
  restPassword?: string;
  public?: boolean;
  grantTypes?: string[];
  postLogoutRedirectUris?: string[];
  resources?: string[];
  exchangeFrom?: string[];
  firstParty?: boolean;
  trustRelayedAddress?: boolean;
  requirePushedAuthorizationRequests?: boolean;
  idTokenSignedResponseAlg?: string;
  dpopBoundAccessTokens?: boolean;
  backchannelLogoutUri?: string;
  bootstrap?: boolean;
  registration?: ClientRegistration;
  /** RFC 7592: the registration access token a registered client manages itself with; stored as a digest. */
  registrationToken?: string;
  expiresAt?: number;
}

/** One reason a definition is refused, with the field it is about. */
export interface ClientProblem {
  field: keyof ClientDefinition;
  desc: string;
}

/** Hosts a plain-http redirect may name: the user's own machine (RFC 8252 7.3). */
const LOOPBACK_HOSTS = ["localhost", "127.0.0.1", "[::1]"];

/** RFC 8252 7.1: a native app's private-use scheme is a reverse domain name it owns, so it holds a dot. */
const PRIVATE_USE_SCHEME = /^[a-z][a-z0-9+-]*(\.[a-z0-9+-]+)+:$/;

/**
 * Whether the browser may be sent to this address: an allow-list, since a deny-list misses
 * the next script scheme (vbscript:). https; http to a loopback host; a reverse-domain app scheme.
 */
export function redirectSchemeAllowed(uri: string): boolean {
  if (!URL.canParse(uri)) return false;
  const { protocol, hostname } = new URL(uri);
  if (protocol === "https:") return true;
  if (protocol === "http:") return LOOPBACK_HOSTS.includes(hostname);
  return PRIVATE_USE_SCHEME.test(protocol);
}

/** A redirect target: absolute, no fragment (RFC 6749 3.1.2), and a scheme of the allow-list. */
function redirectProblem(kind: string, uri: string): string | undefined {
  if (!URL.canParse(uri) || uri.includes("#")) return `${kind} is not an absolute URL without a fragment: ${uri}`;
  if (!redirectSchemeAllowed(uri))
    return `${kind} must use https, http to a loopback host (localhost, 127.0.0.1, [::1]) or an app's reverse-domain scheme (com.example.app:/cb): ${uri}`;
  return undefined;
}

/** An absolute https URL, or http to a loopback host (development), without a fragment. */
export function httpsOrLoopback(uri: string): boolean {
  if (!URL.canParse(uri) || uri.includes("#")) return false;
  const { protocol, hostname } = new URL(uri);
  return protocol === "https:" || (protocol === "http:" && LOOPBACK_HOSTS.includes(hostname));
}

/** Back-Channel Logout 1.0 2.2: an absolute https URL (http to a loopback host for development), no fragment. */
function backchannelProblem(uri: string): string | undefined {
  if (httpsOrLoopback(uri)) return undefined;
  return `back-channel logout URI must be https (or http to a loopback host) without a fragment: ${uri}`;
}

/** Validates a definition; returns the problems in plain words for an operator. */
export function clientDefinitionProblems(def: ClientDefinition): ClientProblem[] {
  const problems: ClientProblem[] = [];
  const add = (field: keyof ClientDefinition, desc: string | undefined) => {
    if (desc) problems.push({ field, desc });
  };
  if (!CLIENT_ID_PATTERN.test(def.clientId)) {
    add("clientId", "client id must be 1-128 letters, digits or . _ ~ - and start with a letter or digit");
  }
  if ((Object.values(BUILT_IN_CLIENT_IDS) as string[]).includes(def.clientId))
    add("clientId", "this client id belongs to the service's own console");
  if (def.secret === "" || def.restPassword === "") add("secret", "a secret cannot be empty");
  const unknown = def.scopes.filter((s) => permissionKind(s) === undefined && !isOidcScope(s));
  if (unknown.length > 0) add("scopes", `unknown permissions: ${unknown.join(" ")}`);
  for (const uri of def.redirectUris ?? []) add("redirectUris", redirectProblem("redirect URI", uri));
  for (const uri of def.postLogoutRedirectUris ?? []) {
    add("postLogoutRedirectUris", redirectProblem("post-logout redirect URI", uri));
  }
  const audiences = { resources: "resource", exchangeFrom: "exchangeable audience" } as const;
  for (const [field, kind] of Object.entries(audiences) as [keyof typeof audiences, string][]) {
    for (const uri of def[field] ?? []) {
      if (!URL.canParse(uri) || uri.includes("#")) add(field, `${kind} is not an absolute URI: ${uri}`);
    }
  }
  if (
    def.idTokenSignedResponseAlg !== undefined &&
    !(ID_TOKEN_ALGS as readonly string[]).includes(def.idTokenSignedResponseAlg)
  )
    add(
      "idTokenSignedResponseAlg",
      `ID tokens are signed ${ID_TOKEN_ALGS.join(" or ")}, not ${def.idTokenSignedResponseAlg}`,
    );
  if (def.backchannelLogoutUri) add("backchannelLogoutUri", backchannelProblem(def.backchannelLogoutUri));
  const grants = def.grantTypes ?? (def.public ? PUBLIC_GRANT_TYPES : DEFAULT_GRANT_TYPES);
  const unknownGrants = grants.filter((g) => !GRANT_TYPES.includes(g));
  if (unknownGrants.length > 0) add("grantTypes", `unknown grant types: ${unknownGrants.join(" ")}`);
  if (def.public) {
    if (def.secret !== undefined || def.restPassword !== undefined)
      add("secret", "a public client has no secret and no REST password");
    // Anyone can call as a public client, so the address it relays proves nothing.
    if (def.trustRelayedAddress)
      add("trustRelayedAddress", "only a confidential client may have the address it relays trusted");
    const confidentialOnly = grants.filter((g) => !PUBLIC_MAY_USE.includes(g));
    if (confidentialOnly.length > 0)
      add(
        "grantTypes",
        `a public client may only use authorization_code, refresh_token and the device grant, not ${confidentialOnly.join(" ")}`,
      );
  }
  if (grants.includes(GRANT.authorizationCode) && (def.redirectUris ?? []).length === 0 && def.public)
    add("redirectUris", "a public client needs at least one redirect URI");
  return problems;
}

/**
 * The permissions of a scope list as a client holds them: OpenID Connect scopes, which
 * operators copy in from their application's settings, are taken and dropped, since every
 * client may ask for them.
 */
export function clientPermissions(scopes: readonly string[]): string[] {
  return [...new Set(scopes.filter((s) => !isOidcScope(s)))];
}

/** Builds the record and digests; the returned secret is shown once and never stored. */
export function buildClient(def: ClientDefinition, now: number) {
  // A public client gets no secret at all: the stored digest matches nothing presented.
  const secret = def.public ? "" : (def.secret ?? generateSecret());
  const record: ClientRecord = {
    clientId: def.clientId,
    scopes: clientPermissions(def.scopes),
    redirectUris: def.redirectUris ?? [],
    hasRestPassword: def.restPassword !== undefined,
    public: def.public ?? false,
    grantTypes: [...new Set(def.grantTypes ?? (def.public ? PUBLIC_GRANT_TYPES : DEFAULT_GRANT_TYPES))],
    postLogoutRedirectUris: def.postLogoutRedirectUris ?? [],
    resources: def.resources ?? [],
    exchangeFrom: def.exchangeFrom ?? [],
    firstParty: def.firstParty ?? false,
    trustRelayedAddress: def.trustRelayedAddress ?? false,
    requirePushedAuthorizationRequests: def.requirePushedAuthorizationRequests ?? false,
    idTokenSignedResponseAlg: (def.idTokenSignedResponseAlg as IdTokenAlg | undefined) ?? DEFAULT_ID_TOKEN_ALG,
    dpopBoundAccessTokens: def.dpopBoundAccessTokens ?? false,
    ...(def.backchannelLogoutUri && { backchannelLogoutUri: def.backchannelLogoutUri }),
    bootstrap: def.bootstrap ?? false,
    ...(def.registration && { registration: def.registration }),
    ...(def.expiresAt !== undefined && { expiresAt: def.expiresAt }),
    createdAt: now,
    updatedAt: now,
  };
  const secrets: ClientSecrets = {
    secretHash: def.public ? NO_SECRET : digestSecret(secret),
    restPasswordHash: def.restPassword === undefined ? undefined : digestSecret(def.restPassword),
    ...(def.registrationToken !== undefined && { registrationTokenHash: digestSecret(def.registrationToken) }),
  };
  return { record, secrets, secret };
}
