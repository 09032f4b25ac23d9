import { createHash, randomBytes } from "node:crypto";
import { signValue, verifySignedValue } from "../../crypto/signed-value";
import type { TakenChallenge } from "./ports";

/**
 * WebAuthn challenges are signed values, not stored ones: a page or an application gets one
 * without a write, and the ceremony that answers it takes it once (PasskeyRepository.takeChallengeItem).
 * Each is bound to its purpose and to who asked (the account, or the browser's CSRF token).
 */

export type ChallengePurpose = "register" | "authenticate";

/** Short: the user is at the device when the ceremony starts. */
export const CHALLENGE_TTL_SECONDS = 300;

const bindingDigest = (binding: string) => createHash("sha256").update(binding).digest("base64url").slice(0, 22);

/** The challenge as the WebAuthn options carry it (its UTF-8 bytes). */
export function newChallenge(key: Buffer, purpose: ChallengePurpose, binding: string, now: number): string {
  const payload = {
    p: purpose,
    b: bindingDigest(binding),
    e: now + CHALLENGE_TTL_SECONDS,
    n: randomBytes(16).toString("base64url"),
  };
  return signValue(key, Buffer.from(JSON.stringify(payload)).toString("base64url"));
}

/**
 * The challenge to take when `clientChallenge` (base64url, from the client data) is one of ours,
 * alive, for this purpose and this binding; otherwise undefined.
 */
export function openChallenge(
  key: Buffer,
  clientChallenge: string,
  purpose: ChallengePurpose,
  binding: string,
  now: number,
): TakenChallenge | undefined {
  const signed = Buffer.from(clientChallenge, "base64url").toString("utf8");
  const payload = verifySignedValue(key, signed);
  if (!payload) return undefined;
  const { p, b, e, n } = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as Record<string, unknown>;
  if (p !== purpose || b !== bindingDigest(binding) || typeof e !== "number" || e <= now || typeof n !== "string")
    return undefined;
  return { nonce: n, expiresAt: e };
}
