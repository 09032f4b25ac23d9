import {
  ApiError,
  type FieldProblem,
  OAuthError,
  oauthDescription,
  problems,
  StorageUnavailableError,
} from "../domain/errors";
import { DPOP_ALGS } from "../domain/oauth/dpop";
import { log } from "../log";
import { PAGE_HEADERS, plainErrorPage } from "../pages/html";
import type { ApiVersion, HttpResult } from "./route";

const JSON_HEADERS = { "content-type": "application/json; charset=utf-8" };
/** RFC 7644 8.1: SCIM's own media type. */
const SCIM_HEADERS = { "content-type": "application/scim+json; charset=utf-8" };
const SCIM_ERROR_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:Error";

/** Which error shape a path gets when no route matched it. */
export function versionOfPath(path: string): ApiVersion {
  if (path.startsWith("/svc/api/v2/")) return "v2";
  if (path.startsWith("/svc/api/v1/") || path.startsWith("/svc/reg/api/v1/")) return "v1";
  if (path.startsWith("/svc/reg/")) return "reg";
  if (path.startsWith("/svc/oauth/")) return "oauth";
  if (path.startsWith("/svc/scim/")) return "scim";
  return "v3";
}

function v3Body(error: ApiError) {
  const { pos, params, errors } = error.details;
  return {
    type: error.type,
    error: error.error,
    desc: error.desc,
    ...(pos !== undefined && { pos }),
    ...(params !== undefined && { params }),
    ...(errors !== undefined && { errors }),
  };
}

function v2Body(error: ApiError) {
  const code = error.details.v2Code ?? error.error;
  const list: FieldProblem[] | undefined = error.details.errors;
  if (list && list.length > 0) {
    return {
      errors: list.map((p) => ({ code, desc: `${p.pos}: ${p.desc}`, params: { field: p.pos, ...p.params } })),
    };
  }
  return {
    errors: [
      {
        code,
        desc: error.desc,
        params: { ...(error.details.pos && { field: error.details.pos }), ...error.details.params },
      },
    ],
  };
}

function registrationBody(error: ApiError) {
  const list = error.details.errors ?? [{ error: error.error, pos: error.details.pos ?? "", desc: error.desc }];
  return { errors: list.map((p) => ({ errMsg: p.desc, field: p.pos })), context: "" };
}

function oauthBody(error: ApiError | OAuthError) {
  const [code, description] = oauthCodeAndDescription(error);
  return { error: code, error_description: oauthDescription(description) };
}

function oauthCodeAndDescription(error: ApiError | OAuthError): [string, string] {
  if (error instanceof OAuthError) return [error.code, error.description];
  if (error.status === 401) return ["invalid_client", error.desc];
  if (error.status < 500) {
    const detail = error.details.errors?.map((p) => `${p.pos}: ${p.desc}`).join("; ");
    return ["invalid_request", detail || error.desc];
  }
  return [error.error, error.desc];
}

/** RFC 7644 3.12: the status as a string, the scimType where one applies, a detail for people. */
function scimBody(error: ApiError) {
  const listed = error.details.errors?.map((p) => `${p.pos}: ${p.desc}`).join("; ");
  const scimType =
    error.details.scimType ?? (error.status === 400 && error.details.errors ? "invalidValue" : undefined);
  return {
    schemas: [SCIM_ERROR_SCHEMA],
    status: String(error.status),
    ...(scimType && { scimType }),
    detail: listed || error.desc,
  };
}

function bodyFor(error: ApiError | OAuthError, version: ApiVersion) {
  if (version === "oauth") return oauthBody(error);
  const api = error instanceof OAuthError ? problems.badAccessToken(error.code) : error;
  if (version === "scim") return scimBody(api);
  if (version === "v2" || version === "v1") return v2Body(api);
  if (version === "reg") return registrationBody(api);
  return v3Body(api);
}

function authenticateHeaders(
  error: ApiError | OAuthError,
  version: ApiVersion,
  resourceMetadata: string | undefined,
): Record<string, string> {
  if (error.status !== 401) return {};
  if (version === "scim") return { "www-authenticate": 'Bearer realm="scim"' };
  if (version === "oauth") {
    // RFC 6750 3.1: a bearer token refused (registration); no error attribute when none came.
    if (error instanceof OAuthError && error.code === "invalid_token")
      return {
        "www-authenticate":
          error.reason === "no_token" ? 'Bearer realm="svc"' : 'Bearer realm="svc", error="invalid_token"',
      };
    return { "www-authenticate": 'Basic realm="svc", charset="UTF-8"' };
  }
  // RFC 6750 3.1: a Bearer challenge beside the interface §7 body. No token at all gets no
  // error attribute; a scope too narrow names the scope, so a client does not refresh in a loop.
  // RFC 9728 5.1: the challenge names the resource's metadata, where a client finds who issues its tokens.
  const challenge = error instanceof ApiError ? error.details.challenge : undefined;
  const metadata = resourceMetadata ? `, resource_metadata="${resourceMetadata}"` : "";
  let bearer = `Bearer realm="svc", error="invalid_token"${metadata}`;
  if (challenge?.scheme === "DPoP") bearer = `DPoP error="${challenge.error}", algs="${DPOP_ALGS.join(" ")}"`;
  else if (challenge && !challenge.error) bearer = `Bearer realm="svc"${metadata}`;
  else if (challenge?.error)
    bearer = `Bearer realm="svc", error="${challenge.error}"${challenge.scope ? `, scope="${challenge.scope}"` : ""}${challenge.maxAge !== undefined ? `, max_age=${challenge.maxAge}` : ""}${metadata}`;
  return { "www-authenticate": version === "v2" || version === "v1" ? `${bearer}, Basic realm="svc"` : bearer };
}

/**
 * The one function that shapes every error body. Errors under 500 are the caller's
 * to read; anything else is logged in full and answered with a generic body that only
 * carries the request id.
 */
export function errorResult(
  error: unknown,
  version: ApiVersion,
  requestId: string,
  /** The management API's RFC 9728 metadata URL, named in its Bearer challenges. */
  resourceMetadata?: string,
): HttpResult {
  let known: ApiError | OAuthError;
  if (error instanceof ApiError || error instanceof OAuthError) {
    known = error;
  } else if (error instanceof StorageUnavailableError) {
    log.error("storage unavailable", { requestId, error });
    known = problems.serviceUnavailable();
  } else {
    log.error("unhandled error", { requestId, error });
    known = new ApiError(500, "process_error", "internal_error", `internal error; request id ${requestId}`, {
      params: { requestId },
      v2Code: "internal_error",
    });
  }
  if (known.status >= 500 && known instanceof ApiError && known.error !== "internal_error") {
    known.details.params = { ...known.details.params, requestId };
  }
  if (version === "page") {
    const message = known instanceof ApiError ? known.desc : known.description;
    return {
      statusCode: known.status,
      headers: { ...PAGE_HEADERS, "x-request-id": requestId },
      body: plainErrorPage(known.status, message),
    };
  }
  const extra = (known instanceof ApiError ? known.details.headers : known.headers) ?? {};
  const cacheHeaders: Record<string, string> = version === "oauth" ? NO_STORE : {};
  const retryHeaders: Record<string, string> = known.status === 503 ? { "retry-after": "1" } : {};
  return {
    statusCode: known.status,
    headers: {
      ...(version === "scim" ? SCIM_HEADERS : JSON_HEADERS),
      ...cacheHeaders,
      ...retryHeaders,
      ...authenticateHeaders(known, version, resourceMetadata),
      ...extra,
      "x-request-id": requestId,
    },
    body: JSON.stringify(bodyFor(known, version)),
  };
}

/** For answers that carry a token or a secret (RFC 6749 5.1): never kept by a cache. */
export const NO_STORE: Readonly<Record<string, string>> = { "cache-control": "no-store", pragma: "no-cache" };

export function jsonResult(statusCode: number, body: unknown, headers: Record<string, string> = {}): HttpResult {
  return {
    statusCode,
    headers: { ...JSON_HEADERS, ...headers },
    body: body === undefined ? "" : JSON.stringify(body),
  };
}

/** A SCIM answer (RFC 7644 8.1), with its media type. */
export function scimResult(statusCode: number, body: unknown, headers: Record<string, string> = {}): HttpResult {
  return { statusCode, headers: { ...SCIM_HEADERS, ...headers }, body: body === undefined ? "" : JSON.stringify(body) };
}

/** 302 for the browser; never cached, since each answer is single-use. */
export function redirectResult(location: string): HttpResult {
  return { statusCode: 302, headers: { location, "cache-control": "no-store" }, body: "" };
}
