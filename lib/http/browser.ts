import { randomBytes, timingSafeEqual } from "node:crypto";
import { config } from "../config";
import { dataKeys } from "../crypto/data-key";
import { open, seal } from "../crypto/sealed-box";
import { signValue, verifySignedValue } from "../crypto/signed-value";
import type { PausedSignIn } from "../domain/sign-in/flow";
import { PAGE_HEADERS } from "../pages/html";
import type { HttpResult } from "./route";

/**
 * What the hosted pages need of the browser: cookies with the right attributes, a CSRF
 * token, the authorization request carried through the forms, and the page headers.
 */

/** On https the `__Host-` prefix pins a cookie to this host and path / (RFC 6265bis 4.1.3.2). */
function secureIssuer(): boolean {
  return config().issuer.startsWith("https://");
}

export function cookieName(name: string): string {
  return secureIssuer() ? `__Host-${name}` : name;
}

/** HttpOnly, SameSite=Lax, Path=/; Secure on https. `maxAge` 0 deletes the cookie. */
export function setCookie(name: string, value: string, maxAge?: number): string {
  const parts = [`${cookieName(name)}=${value}`, "Path=/", "HttpOnly", "SameSite=Lax"];
  if (secureIssuer()) parts.push("Secure");
  if (maxAge !== undefined) parts.push(`Max-Age=${maxAge}`);
  return parts.join("; ");
}

export const COOKIES = {
  /** The browser session (lib/domain/oidc/browser-session.ts). */
  session: "svc_sso",
  /** The device, so a browser that signs in again is the same device (ua_id). */
  device: "svc_ua",
  /** Double-submit CSRF token: the cookie and the form field must match. */
  csrf: "svc_csrf",
} as const;

export function readCookie(cookies: Record<string, string>, name: string): string | undefined {
  return cookies[cookieName(name)];
}

export function newCsrfToken(): string {
  return randomBytes(24).toString("base64url");
}

/** The form's token equals the cookie's: a cross-site form cannot know it. */
export function csrfMatches(cookieValue: string | undefined, formValue: unknown): boolean {
  if (!cookieValue || typeof formValue !== "string") return false;
  const a = Buffer.from(cookieValue);
  const b = Buffer.from(formValue);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** How long a sign-in page may wait for its form. */
const INTERACTION_TTL_SECONDS = 30 * 60;

/**
 * The authorization request's parameters, signed, bound to the CSRF token and to a deadline;
 * with a paused sign-in (what the flow proved so far), that part is also encrypted (AES-256-GCM,
 * its context the CSRF token), so the browser can neither read nor move it to another browser.
 */
export async function sealInteraction(
  query: Record<string, string>,
  csrf: string,
  now: number,
  paused?: PausedSignIn,
): Promise<string> {
  const s = paused && seal(await dataKeys().key("hosted-sign-in-step"), JSON.stringify(paused), csrf);
  const payload = Buffer.from(JSON.stringify({ q: query, c: csrf, e: now + INTERACTION_TTL_SECONDS, ...(s && { s }) }));
  return signValue(await dataKeys().key("hosted-interaction"), payload.toString("base64url"));
}

/** The parameters, and the paused sign-in it carries, when the value is ours, alive and bound to this CSRF token. */
export async function openSignIn(
  sealed: unknown,
  csrf: string,
  now: number,
): Promise<{ query: Record<string, string>; paused?: PausedSignIn } | undefined> {
  if (typeof sealed !== "string" || sealed.length > 16384) return undefined;
  const payload = verifySignedValue(await dataKeys().key("hosted-interaction"), sealed);
  if (!payload) return undefined;
  const { q, c, e, s } = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as {
    q: Record<string, string>;
    c: string;
    e: number;
    s?: string;
  };
  if (c !== csrf || e <= now) return undefined;
  if (s === undefined) return { query: q };
  try {
    return { query: q, paused: JSON.parse(open(await dataKeys().key("hosted-sign-in-step"), s, csrf)) as PausedSignIn };
  } catch {
    return undefined;
  }
}

/** The parameters when the value is ours, alive and bound to this CSRF token. */
export async function openInteraction(
  sealed: unknown,
  csrf: string,
  now: number,
): Promise<Record<string, string> | undefined> {
  return (await openSignIn(sealed, csrf, now))?.query;
}

export function pageResult(statusCode: number, body: string, cookies?: string[]): HttpResult {
  return { statusCode, headers: { ...PAGE_HEADERS }, body, ...(cookies?.length && { cookies }) };
}

/** 303: the browser follows with a GET, whatever the form's method was. */
export function seeOther(location: string, cookies?: string[]): HttpResult {
  return {
    statusCode: 303,
    headers: { location, "cache-control": "no-store", "referrer-policy": "no-referrer" },
    body: "",
    ...(cookies?.length && { cookies }),
  };
}
