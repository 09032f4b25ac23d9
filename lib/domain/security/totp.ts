import { createHash } from "node:crypto";
import { open, seal } from "../../crypto/sealed-box";

/**
 * TOTP (RFC 6238, interface §4.15): 6 digits, 30-second steps, SHA-1, as authenticator apps
 * expect. A code from one step before or after now is accepted (clock drift); a step
 * at or before the last one used is refused (no replay).
 */
export const TOTP_DIGITS = 6;
const DRIFT_SECONDS = 30;

/** otplib is evaluated on a container's first TOTP enrolment or check, not at each cold start. */
const otp = () => import("otplib");

export async function newTotpSecret(): Promise<string> {
  return (await otp()).generateSecret();
}

/** The otpauth:// URI an authenticator app scans. */
export async function totpUri(issuer: string, account: string, secret: string): Promise<string> {
  return (await otp()).generateURI({ issuer, label: account, secret });
}

/** The time step the code belongs to, or undefined when it is wrong or already used. */
export async function matchingStep(secret: string, code: string, lastUsedStep?: number): Promise<number | undefined> {
  if (!/^\d{6}$/.test(code)) return undefined;
  // Outside the try: a library that fails to load is a fault to report, not a wrong code.
  const { verify } = await otp();
  try {
    const result = await verify({
      secret,
      token: code,
      epochTolerance: DRIFT_SECONDS,
      ...(lastUsedStep !== undefined && { afterTimeStep: lastUsedStep }),
    });
    return result.valid ? (result as { timeStep: number }).timeStep : undefined;
  } catch {
    // A malformed secret or step is a wrong code, never a 500.
    return undefined;
  }
}

/** Secrets are looked up by a digest, so the pending item's key does not hold the secret. */
export function secretDigest(secret: string): string {
  return createHash("sha256").update(secret.toUpperCase()).digest("base64url").slice(0, 32);
}

/** Each sealed secret opens only in its own item. */
export const sealPendingSecret = (key: Buffer, sub: string, secret: string) =>
  seal(key, secret, `totp-pending/${sub}/${secretDigest(secret)}`);
export const openPendingSecret = (key: Buffer, sub: string, digest: string, sealed: string) =>
  open(key, sealed, `totp-pending/${sub}/${digest}`);
export const sealGeneratorSecret = (key: Buffer, sub: string, id: string, secret: string) =>
  seal(key, secret, `totp/${sub}/${id}`);
export const openGeneratorSecret = (key: Buffer, sub: string, id: string, sealed: string) =>
  open(key, sealed, `totp/${sub}/${id}`);
