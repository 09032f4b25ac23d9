import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * `<value>.<HMAC-SHA256>` for values we hand out and must recognise as ours when they
 * come back (the bind `state`): a forged one is refused before any storage is read.
 */

function mac(key: Buffer, value: string): Buffer {
  return createHmac("sha256", key).update(value, "utf8").digest();
}

export function signValue(key: Buffer, value: string): string {
  return `${value}.${mac(key, value).toString("base64url")}`;
}

/** The value when the signature is ours, otherwise undefined. */
export function verifySignedValue(key: Buffer, signed: string): string | undefined {
  const dot = signed.lastIndexOf(".");
  if (dot <= 0) return undefined;
  const value = signed.slice(0, dot);
  const presented = Buffer.from(signed.slice(dot + 1), "base64url");
  const expected = mac(key, value);
  return presented.length === expected.length && timingSafeEqual(presented, expected) ? value : undefined;
}
