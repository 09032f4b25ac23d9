import { HookFailedError, type HookRunner } from "../hooks/ports";

/** What the preSignIn hook decided about one sign-in that has proved who the user is. */
export type SignInDecision =
  | { allowed: true }
  | { allowed: false; why: "refused"; message?: string }
  | { allowed: false; why: "failed" };

/**
 * Asks the preSignIn hook (docs/hooks.md) about a sign-in by any method: a password once
 * proved, a passkey, an external provider, a QR code. Asked only after the proof, so the
 * hook learns nothing of unknown logins or wrong guesses; a failed hook refuses (fails closed).
 */
export async function askPreSignIn(
  hooks: HookRunner | undefined,
  request: { clientId: string; sub: string; method: string; ip?: string; userAgent?: string },
): Promise<SignInDecision> {
  try {
    const decision = await hooks?.call("preSignIn", request);
    return decision?.action === "deny"
      ? { allowed: false, why: "refused", message: decision.message }
      : { allowed: true };
  } catch (error) {
    if (!(error instanceof HookFailedError)) throw error;
    return { allowed: false, why: "failed" };
  }
}
