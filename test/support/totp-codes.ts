import { Secret, TOTP } from "otpauth";

/**
 * TOTP codes from an implementation independent of the service's otplib (otpauth), with
 * the parameters authenticator apps assume: SHA-1, six digits, 30-second steps.
 */
export function totpCode(base32Secret: string, offsetSeconds = 0): string {
  const totp = new TOTP({ secret: Secret.fromBase32(base32Secret), algorithm: "SHA1", digits: 6, period: 30 });
  return totp.generate({ timestamp: Date.now() + offsetSeconds * 1000 });
}
