import type { ClientRegistrationPolicy } from "../../config/settings";
import type { SecurityEventLog } from "../audit/ports";
import { digestSecret, generateSecret, secretMatches } from "../credentials/secret-digest";
import { OAuthError } from "../errors";
import { OIDC_SCOPES, parseScope, permissionKind } from "../permissions";
import {
  buildClient,
  type ClientDefinition,
  type ClientRecord,
  type ClientRegistration,
  clientDefinitionProblems,
  DAY_SECONDS,
  GRANT,
  httpsOrLoopback,
  newClientId,
  REGISTERED_AUTH_METHODS,
  type RegisteredAuthMethod,
} from "./client";
import type { ClientRepository, ClientSnapshot, RegistrationAdmissions } from "./ports";

/**
 * OAuth 2.0 Dynamic Client Registration (RFC 7591) and its management protocol (RFC 7592):
 * applications, agents and CLIs register themselves, then read, change and delete their
 * registration with the registration access token answered at registration. Registered
 * clients are always third-party (the user consents), hold only the user permissions the
 * policy opens, and are removed once unused for the policy's time.
 */

/** The grants a registered client may hold: it signs users in through the browser, with their consent. */
const REGISTERED_GRANTS: readonly string[] = [GRANT.authorizationCode, GRANT.refreshToken];

/** Client metadata (RFC 7591 2, OIDC Registration 2, Back-Channel Logout 2.2), as sent; unknown fields are ignored. */
export interface ClientMetadata {
  redirect_uris?: string[];
  token_endpoint_auth_method?: string;
  grant_types?: string[];
  response_types?: string[];
  client_name?: string;
  client_uri?: string;
  logo_uri?: string;
  tos_uri?: string;
  policy_uri?: string;
  contacts?: string[];
  scope?: string;
  software_id?: string;
  software_version?: string;
  id_token_signed_response_alg?: string;
  post_logout_redirect_uris?: string[];
  backchannel_logout_uri?: string;
  backchannel_logout_session_required?: boolean;
  dpop_bound_access_tokens?: boolean;
  /** RFC 9126 6: its authorization requests must be pushed. */
  require_pushed_authorization_requests?: boolean;
  /** RFC 7592 2.2: an update names the client, and may repeat its secret, which must then match. */
  client_id?: string;
  client_secret?: string;
}

/** Who is registering: the bearer token it sent (an initial access token), and its address. */
export interface Registrant {
  bearer?: string;
  address: string;
}

const refusal = {
  closed: () =>
    new OAuthError("access_denied", "client registration is not open on this server", "registration_closed", [], 403),
  needsToken: () =>
    new OAuthError("invalid_token", "registration needs an initial access token from the operator", "no_token"),
  badToken: () => new OAuthError("invalid_token", "the token is unknown, used up or expired"),
  tooMany: () =>
    new OAuthError(
      "invalid_request",
      "too many registrations from this address; try again in an hour",
      "too_many",
      [],
      429,
    ),
  metadata: (description: string) => new OAuthError("invalid_client_metadata", description),
  redirect: (description: string) => new OAuthError("invalid_redirect_uri", description),
};

/** The URLs a client shows of itself: on the consent page, so https (or loopback, in development). */
const SHOWN_URIS = ["client_uri", "logo_uri", "tos_uri", "policy_uri"] as const;

/**
 * The client a metadata document asks for, under the policy; refusals in RFC 7591's words.
 * Without an initial access token (`via` open), redirect URIs are https or loopback only.
 */
function definitionOf(
  meta: ClientMetadata,
  policy: ClientRegistrationPolicy,
  via: ClientRegistration["via"],
  clientId: string,
): ClientDefinition {
  const method = (meta.token_endpoint_auth_method ?? "client_secret_basic") as RegisteredAuthMethod;
  if (!REGISTERED_AUTH_METHODS.includes(method))
    throw refusal.metadata(`token_endpoint_auth_method is one of ${REGISTERED_AUTH_METHODS.join(", ")}`);
  const grantTypes = [...new Set(meta.grant_types ?? [GRANT.authorizationCode])];
  const notOpen = grantTypes.filter((g) => !REGISTERED_GRANTS.includes(g));
  if (notOpen.length > 0)
    throw refusal.metadata(
      `a registered client may use authorization_code and refresh_token, not ${notOpen.join(" ")}`,
    );
  const responseTypes = meta.response_types ?? ["code"];
  if (responseTypes.some((t) => t !== "code")) throw refusal.metadata("response_types may only be code");
  if (!grantTypes.includes(GRANT.authorizationCode))
    throw refusal.metadata("grant_types must include authorization_code, which response type code uses");
  const redirectUris = meta.redirect_uris ?? [];
  if (redirectUris.length === 0) throw refusal.redirect("redirect_uris is required");
  if (via === "open") {
    const other = redirectUris.find((uri) => !httpsOrLoopback(uri));
    if (other) throw refusal.redirect(`without an initial access token, redirect URIs are https or loopback: ${other}`);
  }
  for (const field of SHOWN_URIS) {
    const uri = meta[field];
    if (uri !== undefined && !httpsOrLoopback(uri)) throw refusal.metadata(`${field} must be an https URL`);
  }
  // Our permissions are the policy's to open; other names are scopes of protected resources,
  // judged by the resource a request names (MCP clients register the scopes they will ask for).
  const ours = (s: string) => permissionKind(s) !== undefined;
  const asked = meta.scope === undefined ? policy.scopes : parseScope(meta.scope).filter(ours);
  const closed = asked.filter((s) => !policy.scopes.includes(s));
  if (closed.length > 0) throw refusal.metadata(`scope not open to registered clients: ${closed.join(" ")}`);

  const def: ClientDefinition = {
    clientId,
    scopes: asked,
    public: method === "none",
    grantTypes,
    redirectUris,
    postLogoutRedirectUris: meta.post_logout_redirect_uris ?? [],
    firstParty: false,
    ...(meta.id_token_signed_response_alg !== undefined && {
      idTokenSignedResponseAlg: meta.id_token_signed_response_alg,
    }),
    ...(meta.backchannel_logout_uri !== undefined && { backchannelLogoutUri: meta.backchannel_logout_uri }),
    ...(meta.dpop_bound_access_tokens !== undefined && { dpopBoundAccessTokens: meta.dpop_bound_access_tokens }),
    requirePushedAuthorizationRequests: meta.require_pushed_authorization_requests === true,
  };
  const problems = clientDefinitionProblems(def);
  const redirect = problems.find((p) => p.field === "redirectUris" || p.field === "postLogoutRedirectUris");
  if (redirect) throw refusal.redirect(redirect.desc);
  if (problems.length > 0) throw refusal.metadata(problems.map((p) => p.desc).join("; "));
  return def;
}

/** What a client says of itself: our field, and its name in the metadata (RFC 7591 2). */
const SAID = [
  ["clientName", "client_name"],
  ["clientUri", "client_uri"],
  ["logoUri", "logo_uri"],
  ["tosUri", "tos_uri"],
  ["policyUri", "policy_uri"],
  ["contacts", "contacts"],
  ["softwareId", "software_id"],
  ["softwareVersion", "software_version"],
] as const;

/** What the client said of itself, kept to show and to answer back. */
function registrationOf(
  meta: ClientMetadata,
  via: ClientRegistration["via"],
  policy: ClientRegistrationPolicy,
): ClientRegistration {
  return {
    via,
    tokenEndpointAuthMethod: (meta.token_endpoint_auth_method ?? "client_secret_basic") as RegisteredAuthMethod,
    ...Object.fromEntries(
      SAID.filter(([, name]) => meta[name] !== undefined).map(([ours, name]) => [ours, meta[name]]),
    ),
    keepUnusedSeconds: policy.unusedDays * DAY_SECONDS,
  };
}

/** The client information response (RFC 7591 3.2.1, RFC 7592 3): its metadata as registered, never a digest. */
export function clientInformation(record: ClientRecord, registrationClientUri: string) {
  const r = record.registration;
  return {
    client_id: record.clientId,
    client_id_issued_at: record.createdAt,
    ...(!record.public && { client_secret_expires_at: 0 }),
    registration_client_uri: registrationClientUri,
    token_endpoint_auth_method: r?.tokenEndpointAuthMethod ?? (record.public ? "none" : "client_secret_basic"),
    grant_types: record.grantTypes,
    response_types: ["code"],
    redirect_uris: record.redirectUris,
    post_logout_redirect_uris: record.postLogoutRedirectUris,
    // Every client may ask for the OpenID Connect scopes; the rest are what it holds.
    scope: [...OIDC_SCOPES, ...record.scopes].join(" "),
    id_token_signed_response_alg: record.idTokenSignedResponseAlg,
    dpop_bound_access_tokens: record.dpopBoundAccessTokens,
    require_pushed_authorization_requests: record.requirePushedAuthorizationRequests,
    ...(record.backchannelLogoutUri !== undefined && {
      backchannel_logout_uri: record.backchannelLogoutUri,
      backchannel_logout_session_required: true,
    }),
    ...Object.fromEntries(SAID.filter(([ours]) => r?.[ours] !== undefined).map(([ours, name]) => [name, r?.[ours]])),
  };
}

export interface ClientRegistrationDeps {
  clients: ClientRepository;
  admissions: RegistrationAdmissions;
  events: Pick<SecurityEventLog, "putItem">;
  policy: ClientRegistrationPolicy;
  /** The client configuration endpoint of a client id (registration_client_uri). */
  clientUri: (clientId: string) => string;
}

/** Who called, for the security event of a registration change. */
export interface RegistrationCaller {
  ip?: string;
  ua?: string;
}

export type ClientRegistrationUseCases = ReturnType<typeof clientRegistrationUseCases>;

export function clientRegistrationUseCases(deps: ClientRegistrationDeps) {
  const { clients, admissions, policy } = deps;
  const event = (type: string, clientId: string, caller: RegistrationCaller, prms: Record<string, string> = {}) =>
    deps.events.putItem({
      type,
      cId: clientId,
      sbj: clientId,
      sbjType: "its",
      ts: Date.now(),
      result: "ok",
      ...(caller.ip !== undefined && { ip: caller.ip }),
      ...(caller.ua !== undefined && { ua: caller.ua }),
      prms,
    });

  /**
   * The registered client a registration access token manages, or one refusal for every
   * failure (RFC 7592 3: an unknown client and a wrong token are not told apart).
   */
  async function managed(clientId: string, token: string | undefined): Promise<ClientSnapshot> {
    if (!token) throw refusal.needsToken();
    const snapshot = await clients.getForChange(clientId);
    if (!snapshot?.record.registration || !secretMatches(token, snapshot.registrationTokenHash))
      throw refusal.badToken();
    return snapshot;
  }

  return {
    /** RFC 7591 3: registers a client; its secret and registration access token are answered this once. */
    async register(meta: ClientMetadata, registrant: Registrant, caller: RegistrationCaller, now: number) {
      if (policy.mode === "off") throw refusal.closed();
      if (policy.mode === "token" && !registrant.bearer) throw refusal.needsToken();
      const via = registrant.bearer ? "token" : "open";
      const clientId = newClientId();
      const def: ClientDefinition = {
        ...definitionOf(meta, policy, via, clientId),
        registration: registrationOf(meta, via, policy),
        expiresAt: now + policy.unusedDays * DAY_SECONDS,
      };
      const registrationToken = generateSecret();
      const { record, secrets, secret } = buildClient({ ...def, registrationToken }, now);
      const admission = registrant.bearer
        ? admissions.useInitialToken(digestSecret(registrant.bearer), now)
        : admissions.countFromAddress(registrant.address, policy.perAddressPerHour, now);
      const saved = await clients.register(record, secrets, admission, [
        event("client-registered", clientId, caller, { via }),
      ]);
      if (!saved) throw registrant.bearer ? refusal.badToken() : refusal.tooMany();
      return {
        ...clientInformation(record, deps.clientUri(clientId)),
        ...(!record.public && { client_secret: secret }),
        registration_access_token: registrationToken,
      };
    },

    /** RFC 7592 2.1: the registration as stored; the token presented is answered back, as the RFC requires one. */
    async read(clientId: string, token: string | undefined) {
      const { record } = await managed(clientId, token);
      return { ...clientInformation(record, deps.clientUri(clientId)), registration_access_token: token };
    },

    /** RFC 7592 2.2: replaces the metadata with what is sent, under the same policy as at registration. */
    async update(clientId: string, token: string | undefined, meta: ClientMetadata, caller: RegistrationCaller) {
      const { record, revision, secretHash } = await managed(clientId, token);
      const registration = record.registration as ClientRegistration;
      if (meta.client_id !== clientId) throw new OAuthError("invalid_request", "client_id must name this client");
      if (meta.client_secret !== undefined && !secretMatches(meta.client_secret, secretHash))
        throw new OAuthError("invalid_request", "client_secret does not match the client's secret");
      const method = meta.token_endpoint_auth_method ?? "client_secret_basic";
      if ((method === "none") !== record.public)
        throw refusal.metadata("token_endpoint_auth_method cannot change between none and a secret");
      const def = definitionOf(meta, policy, registration.via, clientId);
      const next = {
        scopes: def.scopes,
        grantTypes: def.grantTypes ?? [],
        redirectUris: def.redirectUris ?? [],
        postLogoutRedirectUris: def.postLogoutRedirectUris ?? [],
        idTokenSignedResponseAlg: (def.idTokenSignedResponseAlg ?? record.idTokenSignedResponseAlg) as
          | "RS256"
          | "ES256",
        backchannelLogoutUri: def.backchannelLogoutUri ?? "",
        requirePushedAuthorizationRequests: def.requirePushedAuthorizationRequests ?? false,
        registration: {
          ...registrationOf(meta, registration.via, policy),
          keepUnusedSeconds: registration.keepUnusedSeconds,
        },
        updatedAt: Math.floor(Date.now() / 1000),
      };
      const written = await clients.update(clientId, next, { revision }, [
        event("client-registration-changed", clientId, caller),
      ]);
      if (!written) throw new OAuthError("invalid_request", "the registration changed while this call ran; try again");
      const changed: ClientRecord = { ...record, ...next, backchannelLogoutUri: def.backchannelLogoutUri };
      if (changed.backchannelLogoutUri === undefined) delete changed.backchannelLogoutUri;
      return {
        ...clientInformation(changed, deps.clientUri(clientId)),
        ...(meta.client_secret !== undefined && { client_secret: meta.client_secret }),
        registration_access_token: token,
      };
    },

    /** RFC 7592 2.3: the client is gone; its tokens live until they expire, and it can get no more. */
    async remove(clientId: string, token: string | undefined, caller: RegistrationCaller) {
      const { revision } = await managed(clientId, token);
      const removed = await clients.delete(clientId, { revision }, [
        event("client-registration-deleted", clientId, caller),
      ]);
      if (!removed) throw refusal.badToken();
    },

    /** An operator's initial access token: good for `uses` registrations within `days`; answered once, stored as a digest. */
    async issueInitialToken(uses: number, days: number, now: number) {
      const token = generateSecret();
      const expiresAt = now + days * DAY_SECONDS;
      await admissions.issueInitialToken(digestSecret(token), uses, expiresAt, now);
      return { token, uses, expiresAt };
    },
  };
}
