import type { FunctionName } from "../../lib/http/route";
import { invoke, sampleEvent } from "./fixtures";

/** `id:secret` in base64, as HTTP Basic and the samples' {{clientBasic}} carry it. */
export function basicCredentials(id: string, secret: string): string {
  return Buffer.from(`${id}:${secret}`).toString("base64");
}

/** The Authorization header of HTTP Basic. */
export function basicAuthorization(id: string, secret: string): string {
  return `Basic ${basicCredentials(id, secret)}`;
}

export interface RequestChanges {
  /** Path parameters; rawPath is rebuilt from the route key. */
  params?: Record<string, string>;
  query?: Record<string, string>;
  /** A string is sent as it is; anything else as JSON. */
  body?: unknown;
  /** null removes the header. */
  authorization?: string | null;
  /** Values for the sample event's {{placeholders}}. */
  values?: Record<string, string>;
  /** Headers to set; null removes one. */
  headers?: Record<string, string | null>;
}

/**
 * Runs a sample event with some parts replaced, so each test can point the documented
 * sample at its own fresh accounts, groups and tokens.
 */
export async function request(fn: FunctionName, samplePath: string, changes: RequestChanges = {}) {
  return invoke(fn, await prepareRequest(samplePath, changes));
}

/** The event `request` would send, for tests that look at storage between preparing and sending. */
export async function prepareRequest(samplePath: string, changes: RequestChanges = {}) {
  // A given Authorization replaces the sample's before its token placeholder is filled.
  const event = await sampleEvent(samplePath, changes.values, (raw) => {
    // A replaced body's placeholders need no values.
    if ("body" in changes) delete raw.body;
    if (changes.authorization === null) delete raw.headers.authorization;
    else if (changes.authorization !== undefined) raw.headers.authorization = changes.authorization;
  });
  if (changes.params) {
    event.pathParameters = changes.params;
    const template = event.routeKey.split(" ")[1];
    event.rawPath = template.replace(/\{([^}]+)\}/g, (_, name: string) =>
      encodeURIComponent(changes.params?.[name] ?? ""),
    );
  }
  if (changes.query) {
    event.queryStringParameters = changes.query;
    event.rawQueryString = new URLSearchParams(changes.query).toString();
  }
  if ("body" in changes) {
    event.body = typeof changes.body === "string" ? changes.body : JSON.stringify(changes.body);
    event.headers["content-type"] ??= "application/json";
  }
  for (const [name, value] of Object.entries(changes.headers ?? {})) {
    if (value === null) delete event.headers[name];
    else event.headers[name] = value;
  }
  return event;
}

/** GET of the account by its own user with this access token (user mode). */
export function readOwnAccount(sub: string, accessToken: string) {
  return request("users", "events/users/get-user-user-mode.json", {
    params: { subjectId: sub },
    authorization: `Bearer ${accessToken}`,
  });
}

/** The registration confirmation of `context` with these codes (or a resend). */
export async function confirmRegistration(context: string, body: Record<string, string>) {
  const event = await sampleEvent("events/registration/confirm-sms-code.json", { context, code: "x" });
  event.body = JSON.stringify(body);
  return invoke("registration", event);
}
