import { accessToken, issuerUrl, refresh, startAuthorization } from "./auth";

/** A refused or failed call, with what the service said. */
export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** 401 insufficient_user_authentication: the operator must sign in again, then repeat. */
    readonly reauth = false,
  ) {
    super(message);
  }
  /** The service said no to this operator (403, or a 401 that is not about the token's age). */
  get refused(): boolean {
    return this.status === 403 || (this.status === 401 && !this.reauth);
  }
}

/** The message of an error body in any of the API's shapes (v3, v2 groups, OAuth). */
function messageOf(body: unknown, status: number): string {
  const b = (body ?? {}) as {
    desc?: string;
    error?: string;
    error_description?: string;
    errors?: { desc?: string; code?: string }[];
  };
  const first = b.errors?.[0];
  return (
    b.desc ??
    b.error_description ??
    first?.desc ??
    first?.code ??
    (typeof b.error === "string" ? b.error : undefined) ??
    `HTTP ${status}`
  );
}

export interface Answer<T> {
  body: T;
  headers: Headers;
}

async function send(method: string, path: string, body: unknown): Promise<Response> {
  const headers: Record<string, string> = { authorization: `Bearer ${accessToken() ?? ""}` };
  if (body !== undefined) headers["content-type"] = "application/json";
  return fetch(`${issuerUrl()}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/**
 * Calls the management API with the operator's access token (`path` from the issuer, e.g.
 * `/api/v3/users`). An expired token is refreshed once; errors become ApiProblem.
 */
export async function call<T = unknown>(method: string, path: string, body?: unknown): Promise<Answer<T>> {
  let response = await send(method, path, body);
  const challenge = () => response.headers.get("www-authenticate") ?? "";
  if (response.status === 401 && /invalid_token/.test(challenge())) {
    if (await refresh()) response = await send(method, path, body);
    // No refresh token, or it was refused: authorize again, silently while the hosted session lasts.
    else await startAuthorization({ returnTo: location.hash, prompt: "none", lang: document.documentElement.lang });
  }
  const text = await response.text();
  const parsed = text ? (JSON.parse(text) as unknown) : undefined;
  if (!response.ok) {
    const reauth = response.status === 401 && /insufficient_user_authentication/.test(challenge());
    throw new ApiProblem(response.status, messageOf(parsed, response.status), reauth);
  }
  return { body: parsed as T, headers: response.headers };
}

export const get = async <T>(path: string) => (await call<T>("GET", path)).body;
export const post = async <T>(path: string, body?: unknown) => (await call<T>("POST", path, body)).body;
export const put = async <T>(path: string, body?: unknown) => (await call<T>("PUT", path, body)).body;
export const del = async <T>(path: string, body?: unknown) => (await call<T>("DELETE", path, body)).body;

/** A path segment, escaped. */
export const seg = (value: string) => encodeURIComponent(value);
