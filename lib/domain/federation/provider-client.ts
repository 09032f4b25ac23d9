import type { FederationProviderConfig } from "../../config/settings";

/**
 * Our OAuth 2.0 client towards external providers: the code exchange (RFC 6749 4.1.3
 * with PKCE, RFC 7636), the refresh (RFC 6749 6) and the OIDC userinfo call. Every call
 * has a deadline; answers become ProviderError, never a raw failure.
 */

export const PROVIDER_TIMEOUT_MS = 5000;

export interface ProviderTokens {
  accessToken: string;
  refreshToken?: string;
  /** Seconds, as the provider said (RFC 6749 5.1 `expires_in`). */
  expiresIn?: number;
  idToken?: string;
}

/**
 * refused: the provider answered with an OAuth error (e.g. invalid_grant: the refresh
 * token is no longer good); unavailable: no usable answer (network, timeout, 5xx,
 * not JSON).
 */
export class ProviderError extends Error {
  constructor(
    readonly kind: "refused" | "unavailable",
    readonly code: string,
    readonly status?: number,
  ) {
    super(`provider ${kind}: ${code}${status ? ` (HTTP ${status})` : ""}`);
    this.name = "ProviderError";
  }
}

async function call(url: string, init: RequestInit): Promise<{ status: number; body: Record<string, unknown> }> {
  let response: Response;
  try {
    // No redirects: a token endpoint that moves is a configuration error, not a hop to follow.
    response = await fetch(url, { ...init, redirect: "error", signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS) });
  } catch (error) {
    const timedOut = (error as Error).name === "TimeoutError";
    throw new ProviderError("unavailable", timedOut ? "timeout" : "unreachable");
  }
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    throw new ProviderError("unavailable", "malformed_response", response.status);
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new ProviderError("unavailable", "malformed_response", response.status);
  }
  return { status: response.status, body: body as Record<string, unknown> };
}

/** An OAuth error answer names its code; anything else from a 4xx or 5xx is "unavailable". */
function failure(status: number, body: Record<string, unknown>): ProviderError {
  const code = typeof body.error === "string" && /^[a-z_]{1,64}$/.test(body.error) ? body.error : undefined;
  if (code && status >= 400 && status < 500) return new ProviderError("refused", code, status);
  return new ProviderError("unavailable", code ?? "provider_error", status);
}

/** client_secret_basic (RFC 6749 2.3.1): id and secret form-encoded, then Basic. */
function clientAuthorization(provider: FederationProviderConfig): string {
  const encode = (value: string) => encodeURIComponent(value).replace(/%20/g, "+");
  return `Basic ${Buffer.from(`${encode(provider.clientId)}:${encode(provider.clientSecret)}`).toString("base64")}`;
}

async function tokenRequest(provider: FederationProviderConfig, form: Record<string, string>): Promise<ProviderTokens> {
  const { status, body } = await call(provider.tokenUrl, {
    method: "POST",
    headers: {
      authorization: clientAuthorization(provider),
      "content-type": "application/x-www-form-urlencoded",
      accept: "application/json",
    },
    body: new URLSearchParams(form).toString(),
  });
  if (status !== 200) throw failure(status, body);
  if (typeof body.access_token !== "string" || body.access_token === "") {
    throw new ProviderError("unavailable", "no_access_token", status);
  }
  const expiresIn = Number(body.expires_in);
  return {
    accessToken: body.access_token,
    ...(typeof body.refresh_token === "string" && { refreshToken: body.refresh_token }),
    ...(Number.isFinite(expiresIn) && expiresIn > 0 && { expiresIn: Math.floor(expiresIn) }),
    ...(typeof body.id_token === "string" && { idToken: body.id_token }),
  };
}

export function exchangeCode(
  provider: FederationProviderConfig,
  input: { code: string; redirectUri: string; codeVerifier: string },
): Promise<ProviderTokens> {
  return tokenRequest(provider, {
    grant_type: "authorization_code",
    code: input.code,
    redirect_uri: input.redirectUri,
    code_verifier: input.codeVerifier,
  });
}

export function refreshTokens(provider: FederationProviderConfig, refreshToken: string): Promise<ProviderTokens> {
  return tokenRequest(provider, { grant_type: "refresh_token", refresh_token: refreshToken });
}

export async function fetchUserinfo(
  provider: FederationProviderConfig & { userinfoUrl: string },
  accessToken: string,
): Promise<Record<string, unknown>> {
  const { status, body } = await call(provider.userinfoUrl, {
    method: "GET",
    headers: { authorization: `Bearer ${accessToken}`, accept: "application/json" },
  });
  if (status !== 200) throw failure(status, body);
  return body;
}
