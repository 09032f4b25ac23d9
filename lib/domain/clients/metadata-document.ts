import {
  type ClientRecord,
  DEFAULT_ID_TOKEN_ALG,
  GRANT,
  httpsOrLoopback,
  ID_TOKEN_ALGS,
  type IdTokenAlg,
  NO_SECRET,
} from "./client";
import type { ClientCredentialSource, ClientWithSecrets } from "./credential-cache";

/**
 * OAuth Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document, the
 * client identification the MCP authorization spec adopts): a client_id that is an https
 * URL names a JSON document of client metadata published there. The client is public
 * (PKCE, no secret), third-party, and may ask for what open registration allows.
 */

/** Why a document was not taken; logged by the fetcher's owner, answered as an unknown client. */
export class MetadataDocumentError extends Error {
  constructor(
    readonly url: string,
    reason: string,
  ) {
    super(`client metadata document ${url}: ${reason}`);
    this.name = "MetadataDocumentError";
  }
}

/** A fetched document and how long it may be kept (its Cache-Control, bounded). */
export interface FetchedDocument {
  body: unknown;
  maxAgeSeconds: number;
}

/** Fetches a document under the draft's rules (https, size and time caps, no private addresses). */
export type MetadataDocumentFetcher = (url: string) => Promise<FetchedDocument>;

export interface MetadataDocumentPolicy {
  /** settings.clientRegistration.metadataDocuments */
  enabled: boolean;
  /** The user permissions such a client may hold, besides the OpenID Connect scopes. */
  scopes: string[];
  /** http to a loopback host too: local tools and tests only. */
  allowLoopback: boolean;
}

/**
 * Whether a client id names a metadata document: an https URL with a path, no fragment,
 * no credentials, no dot segments (draft 3). Ordinary client ids never contain "://".
 */
export function isMetadataDocumentId(clientId: string, allowLoopback = false): boolean {
  if (!clientId.includes("://") || !URL.canParse(clientId)) return false;
  const url = new URL(clientId);
  const scheme = url.protocol === "https:" || (allowLoopback && httpsOrLoopback(clientId));
  return (
    scheme &&
    url.pathname !== "/" &&
    !clientId.includes("#") &&
    url.username === "" &&
    url.password === "" &&
    // The URL parser drops dot segments, so the id as written is checked.
    !/\/\.\.?(\/|$)/.test(clientId)
  );
}

const stringList = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((v) => typeof v === "string");

/** The client a document describes, or the reason it cannot be one. */
export function clientOfDocument(
  url: string,
  body: unknown,
  policy: Pick<MetadataDocumentPolicy, "scopes" | "allowLoopback">,
  now: number,
): ClientWithSecrets {
  const refuse = (reason: string) => new MetadataDocumentError(url, reason);
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw refuse("not a JSON object");
  const doc = body as Record<string, unknown>;
  if (doc.client_id !== url) throw refuse("its client_id is not the URL it was fetched from");
  if ("client_secret" in doc || "client_secret_expires_at" in doc) throw refuse("it carries a client secret");
  const method = doc.token_endpoint_auth_method ?? "none";
  if (method !== "none") throw refuse("token_endpoint_auth_method must be none (PKCE)");
  const redirects = doc.redirect_uris;
  if (!stringList(redirects) || redirects.length === 0) throw refuse("redirect_uris is required");
  const unsafe = redirects.find((uri) => !httpsOrLoopback(uri));
  if (unsafe) throw refuse(`redirect URIs are https or loopback: ${unsafe}`);
  const grants = doc.grant_types ?? [GRANT.authorizationCode];
  if (!stringList(grants) || grants.some((g) => g !== GRANT.authorizationCode && g !== GRANT.refreshToken))
    throw refuse("grant_types may be authorization_code and refresh_token only");
  const alg = doc.id_token_signed_response_alg ?? DEFAULT_ID_TOKEN_ALG;
  if (!(ID_TOKEN_ALGS as readonly unknown[]).includes(alg)) throw refuse(`id_token_signed_response_alg ${String(alg)}`);
  const name = typeof doc.client_name === "string" ? doc.client_name.slice(0, 128) : undefined;
  const clientUri = typeof doc.client_uri === "string" && httpsOrLoopback(doc.client_uri) ? doc.client_uri : undefined;
  const postLogout = stringList(doc.post_logout_redirect_uris)
    ? doc.post_logout_redirect_uris.filter(httpsOrLoopback)
    : [];
  const record: ClientRecord = {
    clientId: url,
    scopes: policy.scopes,
    redirectUris: redirects,
    hasRestPassword: false,
    public: true,
    grantTypes: [...new Set([GRANT.authorizationCode, ...grants])],
    postLogoutRedirectUris: postLogout,
    resources: [],
    exchangeFrom: [],
    firstParty: false,
    idTokenSignedResponseAlg: alg as IdTokenAlg,
    dpopBoundAccessTokens: false,
    trustRelayedAddress: false,
    requirePushedAuthorizationRequests: false,
    bootstrap: false,
    registration: {
      via: "document",
      tokenEndpointAuthMethod: "none",
      ...(name !== undefined && { clientName: name }),
      ...(clientUri !== undefined && { clientUri }),
      keepUnusedSeconds: 0,
    },
    createdAt: now,
    updatedAt: now,
  };
  return { ...record, secretHash: NO_SECRET };
}

/** A refused or unreachable document is not asked for again for this long. */
const REFUSED_SECONDS = 60;
/** Bounds the memory a flood of distinct document URLs can take in one container. */
const MAX_DOCUMENTS = 500;

/**
 * Client records by id, where an id that is a document URL is fetched (when the policy
 * allows it) and kept as long as its Cache-Control says; other ids go to `source`.
 * `onRefused` hears why a document was not taken (a log line; never a secret: it has none).
 */
export function withMetadataDocuments(
  source: ClientCredentialSource,
  fetchDocument: MetadataDocumentFetcher,
  policy: () => MetadataDocumentPolicy,
  onRefused: (error: unknown) => void,
  now: () => number = Date.now,
): ClientCredentialSource {
  const kept = new Map<string, { until: number; client: Promise<ClientWithSecrets | undefined> }>();
  async function load(url: string, current: MetadataDocumentPolicy): Promise<ClientWithSecrets | undefined> {
    const fetched = await fetchDocument(url);
    const client = clientOfDocument(url, fetched.body, current, Math.floor(now() / 1000));
    const entry = kept.get(url);
    if (entry) entry.until = now() + fetched.maxAgeSeconds * 1000;
    return client;
  }
  return {
    getWithSecrets(clientId) {
      const current = policy();
      if (!current.enabled || !isMetadataDocumentId(clientId, current.allowLoopback))
        return source.getWithSecrets(clientId);
      const found = kept.get(clientId);
      if (found && found.until > now()) return found.client;
      if (kept.size >= MAX_DOCUMENTS) kept.delete(kept.keys().next().value as string);
      const client = load(clientId, current).catch((error: unknown) => {
        onRefused(error);
        return undefined;
      });
      // Until the fetch says how long, the entry serves requests that arrive meanwhile.
      kept.set(clientId, { until: now() + REFUSED_SECONDS * 1000, client });
      return client;
    },
  };
}
