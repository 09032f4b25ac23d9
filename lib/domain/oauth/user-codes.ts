import { randomInt } from "node:crypto";

/** The user codes of the device authorization grant (RFC 8628 6.1): what a person reads and types. */

/** RFC 8628 6.1: consonants only (no vowels, no words), upper case, no 0/O or 1/I to confuse. */
export const USER_CODE_LETTERS = "BCDFGHJKLMNPQRSTVWXZ";
const USER_CODE_LENGTH = 8;

export function newUserCode(): string {
  return Array.from({ length: USER_CODE_LENGTH }, () => USER_CODE_LETTERS[randomInt(USER_CODE_LETTERS.length)]).join(
    "",
  );
}

/** As typed: case, spaces and dashes do not matter (RFC 8628 6.1); undefined when it cannot be a code. */
export function normalizeUserCode(typed: string): string | undefined {
  const code = typed.toUpperCase().replace(/[\s-]/g, "");
  const valid = code.length === USER_CODE_LENGTH && [...code].every((c) => USER_CODE_LETTERS.includes(c));
  return valid ? code : undefined;
}

/** How the device shows it: two groups of four. */
export function shownUserCode(code: string): string {
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

/** RFC 8628 5.1: an address may try this many user codes an hour; 20^8 codes make guessing hopeless. */
export const USER_CODE_TRIES_PER_HOUR = 20;
