import type { HttpMethod } from "./route";

/**
 * CORS for browser applications (docs/configuration.md, cors.allowedOrigins). One policy, read by
 * the CDK stack (the HTTP API's corsPreflight) and by the local gateway, so both answer alike.
 * No credentials: the API takes bearer tokens in Authorization, never cookies, and the hosted
 * pages are same-origin navigations that need no CORS.
 */

export interface CorsSettings {
  /** Exact origins (`scheme://host[:port]`) or the single entry "*"; empty: no CORS at all. */
  allowedOrigins: string[];
}

/** Every method a route uses (lib/http/route.ts HttpMethod); OPTIONS is the preflight itself. */
export const CORS_ALLOW_METHODS: readonly HttpMethod[] = ["GET", "POST", "PUT", "PATCH", "DELETE"];

/** The non-safelisted request headers a browser client sends: bearer token, JSON/form bodies, the device id, a DPoP proof. */
export const CORS_ALLOW_HEADERS: readonly string[] = ["authorization", "content-type", "svc-ci-ua-id", "dpop"];

/** Response headers a script may read beyond the safelisted ones: the RFC 6750 challenge, the request id, 503's retry, the DPoP nonce. */
export const CORS_EXPOSE_HEADERS: readonly string[] = [
  "www-authenticate",
  "x-request-id",
  "retry-after",
  "link",
  "dpop-nonce",
];

/** Browsers cap it anyway (Chromium at 2 h); an hour spares a preflight per call without pinning a change for long. */
export const CORS_MAX_AGE_SECONDS = 3600;

/** The problem with one configured origin, or undefined when it is an exact origin or a lone "*". */
export function corsOriginProblem(origin: string, index: number, count: number): string | undefined {
  const where = `cors.allowedOrigins[${index}]`;
  if (origin === "*") return count === 1 ? undefined : `${where}: "*" must be the only entry`;
  if (!URL.canParse(origin)) return `${where} is not an origin (scheme://host[:port])`;
  const url = new URL(origin);
  if (url.protocol !== "https:" && url.protocol !== "http:") return `${where} must use http or https`;
  // URL.origin drops paths, queries, credentials, default ports and a trailing "/": equal means exact.
  if (url.origin !== origin) return `${where} must be exactly scheme://host[:port] (it reads as ${url.origin})`;
  return undefined;
}

/** The Access-Control-Allow-Origin for a request's Origin, or undefined when it gets no CORS headers. */
export function allowedOriginFor(settings: CorsSettings, origin: string | undefined): string | undefined {
  if (!origin || settings.allowedOrigins.length === 0) return undefined;
  if (settings.allowedOrigins[0] === "*") return "*";
  return settings.allowedOrigins.includes(origin) ? origin : undefined;
}

/** Headers of an actual (non-preflight) response to an allowed origin. */
export function corsResponseHeaders(allowOrigin: string): Record<string, string> {
  return {
    "access-control-allow-origin": allowOrigin,
    "access-control-expose-headers": CORS_EXPOSE_HEADERS.join(","),
    // A cache must not hand one origin's echoed answer to another.
    ...(allowOrigin === "*" ? {} : { vary: "Origin" }),
  };
}

/** Headers of a preflight (OPTIONS) answer to an allowed origin. */
export function corsPreflightHeaders(allowOrigin: string): Record<string, string> {
  return {
    "access-control-allow-origin": allowOrigin,
    "access-control-allow-methods": CORS_ALLOW_METHODS.join(","),
    "access-control-allow-headers": CORS_ALLOW_HEADERS.join(","),
    "access-control-max-age": String(CORS_MAX_AGE_SECONDS),
    ...(allowOrigin === "*" ? {} : { vary: "Origin" }),
  };
}
