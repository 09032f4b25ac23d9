/**
 * The RQL of the user search (docs/interface.md §4.7) from what an operator types. Pure, so
 * test/functions/console-app.test.ts checks it without a browser.
 */

/** §4.7: each of `& | ( ) = < > ,` and `%` itself is percent-escaped inside a value. */
export function escapeValue(value: string): string {
  return value.replace(/[%&|()=<>,]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`);
}

const eq = (name: string, value: string) => `eq(${name},string:${escapeValue(value)})`;

/**
 * Plain text as a filter over the indexed attributes: an address is an e-mail, digits (with
 * the usual phone punctuation) a phone number, anything else a name or an identifier.
 */
export function filterFor(text: string): string | undefined {
  const value = text.trim().normalize("NFC");
  if (!value) return undefined;
  if (value.includes("@")) return eq("email", value);
  if (/^\+?[\d\s()-]{5,}$/.test(value)) return eq("phone_number", value.replace(/\D/g, ""));
  return `or(${["sub", "family_name", "given_name", "middle_name"].map((name) => eq(name, value)).join(",")})`;
}

/** One page of a filter: `limit` stands at the top level (§4.7); one more than shown tells whether a next page exists. */
export function pagedQuery(filter: string, page: number, size: number): string {
  return `(${filter})&limit(${size + 1},${page * size})`;
}
