/**
 * The forms in which user search compares values (interface §4.7): names and e-mail ignore
 * case (Unicode NFC, then lower case), phone numbers compare by digits, sub exactly.
 * The name index stores names folded, so a lookup is one exact key.
 */

export function foldName(value: string): string {
  return value.normalize("NFC").toLowerCase();
}

export function foldEmail(value: string): string {
  return value.trim().toLowerCase();
}

export function foldPhone(value: string): string {
  return value.replace(/[^0-9]/g, "");
}
