/**
 * Contact values are compared in a normal form, so "+7 (999) 123-45-67" and
 * "79991234567" are one phone, and e-mail addresses differ only by case in no account.
 */

/** `(country code)XXXXXXXXXX` (interface §2.1): 11 to 15 digits once punctuation is dropped. */
export function normalizePhone(raw: string): string | undefined {
  if (!/^\+?[0-9 ()\-.]+$/.test(raw.trim())) return undefined;
  const digits = raw.replace(/[^0-9]/g, "");
  return digits.length >= 11 && digits.length <= 15 ? digits : undefined;
}

// Deliberately plain: one @, a dot in the domain, no spaces; the code that goes to the
// address is what proves it (RFC 5321 allows far more than any user types). No control
// characters: ESC, BEL or NUL would be stored and echoed to consoles and logs.
const EMAIL = /^[^\s@\p{Cc}]{1,64}@[^\s@.\p{Cc}]+(\.[^\s@.\p{Cc}]+)+$/u;

export function normalizeEmail(raw: string): string | undefined {
  const value = raw.trim().toLowerCase();
  return value.length <= 254 && EMAIL.test(value) ? value : undefined;
}
