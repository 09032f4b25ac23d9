import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/**
 * Machine secrets (client secrets, session and refresh secrets) are generated with 256
 * bits of entropy, so a single SHA-256 is as strong as any password hash and costs
 * microseconds (docs/architecture.md).
 */
export function generateSecret(): string {
  return randomBytes(32).toString("base64url");
}

export function digestSecret(secret: string): string {
  return createHash("sha256").update(secret, "utf8").digest("base64url");
}

/** Constant-time comparison of a presented secret with a stored digest. */
export function secretMatches(presented: string, storedDigest: string | undefined): boolean {
  if (!storedDigest) return false;
  const a = Buffer.from(digestSecret(presented));
  const b = Buffer.from(storedDigest);
  return a.length === b.length && timingSafeEqual(a, b);
}
