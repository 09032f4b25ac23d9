import { createRemoteJWKSet, type JWTPayload, jwtVerify } from "jose";
import { PROVIDER_TIMEOUT_MS, ProviderError } from "../federation/provider-client";

/**
 * An organization's provider as OpenID Connect Discovery 1.0 describes it, and its ID
 * tokens checked against its published keys (jose), issuer, audience and nonce.
 */

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** The client secret and tokens cross these URLs: https, or plain http to this machine only (tests, local runs). */
export function providerUrlAllowed(raw: unknown): raw is string {
  if (typeof raw !== "string" || !URL.canParse(raw)) return false;
  const url = new URL(raw);
  return url.protocol === "https:" || (url.protocol === "http:" && LOOPBACK_HOSTS.has(url.hostname));
}

export interface DiscoveredProvider {
  issuer: string;
  authorizeUrl: string;
  tokenUrl: string;
  jwksUri: string;
}

/**
 * Reads `<issuer>/.well-known/openid-configuration`; its `issuer` must be the one given
 * (Discovery 4.3) and every endpoint https (loopback aside). A ProviderError says what failed.
 */
export async function discoverProvider(issuer: string): Promise<DiscoveredProvider> {
  const url = `${issuer.replace(/\/$/, "")}/.well-known/openid-configuration`;
  let body: Record<string, unknown>;
  try {
    const response = await fetch(url, {
      headers: { accept: "application/json" },
      redirect: "error",
      signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS),
    });
    if (response.status !== 200) throw new ProviderError("unavailable", "discovery_status", response.status);
    body = (await response.json()) as Record<string, unknown>;
  } catch (error) {
    if (error instanceof ProviderError) throw error;
    throw new ProviderError("unavailable", "discovery_unreachable");
  }
  if (typeof body !== "object" || body === null) throw new ProviderError("unavailable", "discovery_malformed");
  if (body.issuer !== issuer) throw new ProviderError("unavailable", "discovery_issuer_mismatch");
  const endpoints = [body.authorization_endpoint, body.token_endpoint, body.jwks_uri];
  if (!endpoints.every(providerUrlAllowed)) throw new ProviderError("unavailable", "discovery_endpoints");
  return {
    issuer,
    authorizeUrl: body.authorization_endpoint as string,
    tokenUrl: body.token_endpoint as string,
    jwksUri: body.jwks_uri as string,
  };
}

// One key set per provider and container: jose caches the keys and refetches on an unknown kid.
const keySets = new Map<string, ReturnType<typeof createRemoteJWKSet>>();

function keySetOf(jwksUri: string) {
  let keySet = keySets.get(jwksUri);
  if (!keySet) {
    keySet = createRemoteJWKSet(new URL(jwksUri), { timeoutDuration: PROVIDER_TIMEOUT_MS });
    keySets.set(jwksUri, keySet);
  }
  return keySet;
}

/** The ID token's claims once its signature (the provider's JWKS), issuer, audience, expiry and nonce hold. */
export async function verifiedIdToken(
  provider: { issuer: string; jwksUri: string; clientId: string },
  idToken: string,
  nonce: string,
): Promise<JWTPayload> {
  let claims: JWTPayload;
  try {
    ({ payload: claims } = await jwtVerify(idToken, keySetOf(provider.jwksUri), {
      issuer: provider.issuer,
      audience: provider.clientId,
      clockTolerance: 60,
    }));
  } catch {
    throw new ProviderError("unavailable", "id_token_invalid");
  }
  if (claims.nonce !== nonce) throw new ProviderError("unavailable", "id_token_nonce");
  return claims;
}
