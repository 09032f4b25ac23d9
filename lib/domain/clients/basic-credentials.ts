/** `Basic base64(user:password)` (RFC 7617) as raw text, or undefined when the header is not one. */
function decodeBasic(header: string): { user: string; password: string } | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!match) return undefined;
  const decoded = Buffer.from(match[1], "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon <= 0) return undefined;
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** An application's id and secret: form-encoded before Basic encoding (RFC 6749 2.3.1). */
export function parseBasic(header: string): { id: string; secret: string } | undefined {
  const raw = decodeBasic(header);
  if (!raw) return undefined;
  try {
    return {
      id: decodeURIComponent(raw.user.replace(/\+/g, " ")),
      secret: decodeURIComponent(raw.password.replace(/\+/g, " ")),
    };
  } catch {
    return undefined;
  }
}

/** A user's login and password, exactly as typed: RFC 7617 has no further encoding. */
export function parseUserBasic(header: string): { login: string; password: string } | undefined {
  const raw = decodeBasic(header);
  return raw && { login: raw.user, password: raw.password };
}
