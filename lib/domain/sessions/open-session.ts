import { randomBytes } from "node:crypto";
import { digestSecret, generateSecret } from "../credentials/secret-digest";
import type { SessionRecord } from "./ports";

/** The cookie that carries a session (interface §4.4 `cookies`). */
export const SESSION_COOKIE = "svc_session";

/**
 * A new session: its record (secret stored as a digest) and the cookie value the
 * application sets in the user's browser, `<sid>.<secret>`.
 */
export function openSession(input: {
  sub: string;
  clientId: string;
  ip?: string;
  userAgent?: string;
  now: number;
  ttlSeconds: number;
}): { record: SessionRecord; cookie: { name: string; value: string } } {
  const sid = randomBytes(16).toString("base64url");
  const secret = generateSecret();
  return {
    record: {
      sid,
      sub: input.sub,
      clientId: input.clientId,
      secretHash: digestSecret(secret),
      ip: input.ip,
      userAgent: input.userAgent,
      createdAt: input.now,
      lastUsedAt: input.now,
      expiresAt: input.now + input.ttlSeconds,
    },
    cookie: { name: SESSION_COOKIE, value: `${sid}.${secret}` },
  };
}
