/**
 * Signing in through our own OpenID Connect provider as the built-in public client
 * `svc-console`: authorization code with PKCE (S256), state and nonce. The tokens live in this
 * module only, never in storage; the verifier, state and nonce sit in sessionStorage for the
 * redirect round trip and are removed on return.
 */

export const CLIENT_ID = "svc-console";
const SCOPE = "openid profile svc_console";
const ROUND_TRIP = "svc-console-authorization";
/** The post-logout redirect carries this state, so the console shows "signed out" instead of signing in again. */
const SIGNED_OUT = "signed-out";

export type Role = "admin" | "monitor";
export interface Operator {
  sub: string;
  name: string;
  role: Role;
}

interface Discovery {
  authorization_endpoint: string;
  token_endpoint: string;
  end_session_endpoint?: string;
}

interface Tokens {
  access: string;
  refresh?: string;
  idToken: string;
}

let tokens: Tokens | undefined;
let signedIn: Operator | undefined;
let metadata: Promise<Discovery> | undefined;

/** `<base>/svc/console/`: the redirect and post-logout redirect URI, exactly. */
export function consoleUrl(): string {
  return `${location.origin}${location.pathname}`;
}

/** `<base>/svc`, the issuer the console is served under. */
export function issuerUrl(): string {
  return consoleUrl().replace(/\/console\/?$/, "");
}

function discovery(): Promise<Discovery> {
  metadata ??= fetch(`${issuerUrl()}/.well-known/openid-configuration`).then((response) => {
    if (!response.ok) throw new Error(`discovery answered ${response.status}`);
    return response.json() as Promise<Discovery>;
  });
  return metadata;
}

function base64url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

const random = () => base64url(crypto.getRandomValues(new Uint8Array(32)));

/** The JSON payload of a JWT, read only to show who is signed in (the API checks the access token). */
export function jwtPayload(jwt: string): Record<string, unknown> {
  const part = jwt.split(".")[1] ?? "";
  const binary = atob(part.replace(/-/g, "+").replace(/_/g, "/"));
  return JSON.parse(new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0))));
}

export interface AuthorizationOptions {
  /** The screen to come back to (a `#/...` hash). */
  returnTo: string;
  prompt?: "none" | "login";
  /** 0: sign in again now (a destructive action asked for a recent authentication). */
  maxAge?: number;
  lang: string;
}

/** Sends the browser to the authorization endpoint. */
export async function startAuthorization(options: AuthorizationOptions): Promise<void> {
  const { authorization_endpoint } = await discovery();
  const verifier = random();
  const state = random();
  const nonce = random();
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)));
  sessionStorage.setItem(
    ROUND_TRIP,
    JSON.stringify({ verifier, state, nonce, returnTo: options.returnTo, prompt: options.prompt ?? "" }),
  );
  const url = new URL(authorization_endpoint);
  const params: Record<string, string> = {
    response_type: "code",
    client_id: CLIENT_ID,
    redirect_uri: consoleUrl(),
    scope: SCOPE,
    state,
    nonce,
    code_challenge: base64url(digest),
    code_challenge_method: "S256",
    ui_locales: options.lang,
  };
  if (options.prompt) params.prompt = options.prompt;
  if (options.maxAge !== undefined) params.max_age = String(options.maxAge);
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  location.assign(url.toString());
}

export type Outcome =
  | { kind: "fresh" }
  | { kind: "signed-in"; returnTo: string }
  | { kind: "signed-out" }
  | { kind: "login-required"; returnTo: string }
  | { kind: "denied" }
  | { kind: "failed"; message: string };

async function tokenRequest(body: Record<string, string>): Promise<Tokens> {
  const { token_endpoint } = await discovery();
  const response = await fetch(token_endpoint, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ ...body, client_id: CLIENT_ID }),
  });
  const answer = (await response.json().catch(() => ({}))) as Record<string, string>;
  if (!response.ok || !answer.access_token)
    throw new Error(answer.error_description ?? answer.error ?? `token endpoint answered ${response.status}`);
  return {
    access: answer.access_token,
    refresh: answer.refresh_token ?? tokens?.refresh,
    idToken: answer.id_token ?? tokens?.idToken ?? "",
  };
}

function operatorOf(idToken: string): Operator | undefined {
  const claims = jwtPayload(idToken);
  const role = claims.svc_op;
  if (role !== "admin" && role !== "monitor") return undefined;
  const names = [claims.given_name, claims.family_name].filter((n) => typeof n === "string" && n);
  const name = typeof claims.name === "string" && claims.name ? claims.name : names.join(" ");
  return { sub: String(claims.sub), name: name || String(claims.sub), role };
}

/** Reads the redirect back from the provider (or the post-logout redirect), and cleans the address. */
export async function finishAuthorization(): Promise<Outcome> {
  const query = new URLSearchParams(location.search);
  const stored = sessionStorage.getItem(ROUND_TRIP);
  sessionStorage.removeItem(ROUND_TRIP);
  const clean = (hash: string) => history.replaceState(null, "", `${consoleUrl()}${hash}`);
  if (query.get("state") === SIGNED_OUT && !query.has("code")) {
    clean("");
    return { kind: "signed-out" };
  }
  if (!query.has("state")) return { kind: "fresh" };
  const trip = stored
    ? (JSON.parse(stored) as { verifier: string; state: string; nonce: string; returnTo: string; prompt: string })
    : undefined;
  const returnTo = trip?.returnTo ?? "#/users";
  clean(returnTo);
  if (!trip || query.get("state") !== trip.state) return { kind: "failed", message: "state mismatch" };
  const error = query.get("error");
  if (error === "access_denied") return { kind: "denied" };
  if (error && ["login_required", "interaction_required", "consent_required"].includes(error) && trip.prompt === "none")
    return { kind: "login-required", returnTo };
  if (error) return { kind: "failed", message: query.get("error_description") ?? error };
  try {
    const got = await tokenRequest({
      grant_type: "authorization_code",
      code: query.get("code") ?? "",
      redirect_uri: consoleUrl(),
      code_verifier: trip.verifier,
    });
    if (jwtPayload(got.idToken).nonce !== trip.nonce) return { kind: "failed", message: "nonce mismatch" };
    const operator = operatorOf(got.idToken);
    if (!operator) return { kind: "denied" };
    tokens = got;
    signedIn = operator;
    return { kind: "signed-in", returnTo };
  } catch (failure) {
    return { kind: "failed", message: (failure as Error).message };
  }
}

export const accessToken = () => tokens?.access;
export const operator = () => signedIn;

/** A new access token from the refresh token; false when there is none or it is refused. */
export async function refresh(): Promise<boolean> {
  if (!tokens?.refresh) return false;
  try {
    tokens = await tokenRequest({ grant_type: "refresh_token", refresh_token: tokens.refresh });
    return true;
  } catch {
    return false;
  }
}

/** RP-initiated logout: the provider ends the session and comes back here saying so. */
export async function signOut(): Promise<void> {
  const { end_session_endpoint } = await discovery();
  const hint = tokens?.idToken;
  tokens = undefined;
  signedIn = undefined;
  if (!end_session_endpoint) return location.assign(consoleUrl());
  const url = new URL(end_session_endpoint);
  url.searchParams.set("client_id", CLIENT_ID);
  url.searchParams.set("post_logout_redirect_uri", consoleUrl());
  url.searchParams.set("state", SIGNED_OUT);
  if (hint) url.searchParams.set("id_token_hint", hint);
  location.assign(url.toString());
}
