import { digestSecret, generateSecret } from "../credentials/secret-digest";

/**
 * Refresh tokens are opaque: `rt1.<sub>.<sid>.<secret>` (sub base64url). The session
 * stores only the digest of the current secret; each refresh replaces it, so every
 * refresh token works once, and presenting a replaced one ends the session (reuse of a
 * stolen token).
 */
const PREFIX = "rt1";

export function newRefreshToken(sub: string, sid: string): { token: string; hash: string } {
  const secret = generateSecret();
  return {
    token: [PREFIX, Buffer.from(sub, "utf8").toString("base64url"), sid, secret].join("."),
    hash: digestSecret(secret),
  };
}

export function parseRefreshToken(token: string): { sub: string; sid: string; hash: string } | undefined {
  const parts = token.split(".");
  if (parts.length !== 4 || parts[0] !== PREFIX) return undefined;
  const [, encodedSub, sid, secret] = parts;
  if (
    !/^[A-Za-z0-9_-]+$/.test(encodedSub) ||
    !/^[A-Za-z0-9_-]{16,64}$/.test(sid) ||
    !/^[A-Za-z0-9_-]{43}$/.test(secret)
  ) {
    return undefined;
  }
  return { sub: Buffer.from(encodedSub, "base64url").toString("utf8"), sid, hash: digestSecret(secret) };
}
