import { createHash } from "node:crypto";
import { SUB_PATTERN } from "./new-account";

/**
 * Other systems' user exports, turned into import lines (import.ts) one record at a time,
 * so their line numbers stay the file's: a Cognito user CSV and an Auth0 bulk export.
 * A record that cannot be read becomes an error for its line; values are never quoted.
 */

export type SourceLine = string | { error: string };
type Lines = AsyncIterable<string> | Iterable<string>;

const SUB = new RegExp(SUB_PATTERN);

/** A sub kept stable across reruns: the other system's id when it fits, else a digest of it. */
function stableSub(id: string): string {
  if (SUB.test(id)) return id;
  const hex = createHash("sha256").update(id).digest("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** One RFC 4180 record on one line; undefined when a quote is left open. */
function csvFields(line: string): string[] | undefined {
  const fields: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const char = line[i];
    if (quoted) {
      if (char === '"' && line[i + 1] === '"') {
        field += '"';
        i++;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"' && field === "") quoted = true;
    else if (char === ",") {
      fields.push(field);
      field = "";
    } else field += char;
  }
  if (quoted) return undefined;
  fields.push(field);
  return fields;
}

const flag = (value: string | undefined) => value?.trim().toLowerCase() === "true";
const filled = (value: string | undefined) => (value && value.trim() !== "" ? value.trim() : undefined);

/**
 * Cognito's user CSV (the header of GetCSVHeader, or a ListUsers dump with `sub`): no password
 * hashes leave Cognito, so accounts come without a password; contacts keep their verified flags.
 */
export async function* cognitoCsvLines(lines: Lines): AsyncGenerator<SourceLine> {
  let header: string[] | undefined;
  for await (const raw of lines) {
    const text = raw.replace(/^\uFEFF/, "");
    if (text.trim() === "") {
      yield "";
      continue;
    }
    const fields = csvFields(text);
    if (!fields) {
      yield { error: "a quoted CSV field is not closed on its line" };
      continue;
    }
    if (!header) {
      header = fields.map((name) => name.trim());
      if (!header.includes("email") && !header.includes("phone_number") && !header.includes("cognito:username")) {
        yield { error: "not a Cognito user CSV header (no cognito:username, email or phone_number column)" };
        return;
      }
      yield "";
      continue;
    }
    const row = Object.fromEntries(header.map((name, i) => [name, fields[i]]));
    const id = filled(row.sub) ?? filled(row["cognito:username"]);
    const email = filled(row.email);
    const phone = filled(row.phone_number);
    yield JSON.stringify({
      ...(id && { sub: stableSub(id) }),
      ...(filled(row.family_name) && { family_name: filled(row.family_name) }),
      ...(filled(row.given_name) && { given_name: filled(row.given_name) }),
      ...(filled(row.middle_name) && { middle_name: filled(row.middle_name) }),
      ...(row.enabled !== undefined && { locked: row.enabled.trim().toLowerCase() === "false" }),
      ...(email && { email: { value: email, verified: flag(row.email_verified) } }),
      ...(phone && { phone_number: { value: phone, verified: flag(row.phone_number_verified) } }),
    });
  }
}

interface Auth0User {
  user_id?: string;
  _id?: { $oid?: string } | string;
  email?: string;
  email_verified?: boolean;
  phone_number?: string;
  phone_verified?: boolean;
  given_name?: string;
  family_name?: string;
  blocked?: boolean;
  password_hash?: string;
  passwordHash?: string;
  custom_password_hash?: { algorithm?: string; hash?: { value?: string } };
}

/** An Auth0 user (bulk export job, or the password-hash export with `passwordHash`) as an import line. */
function auth0Line(value: unknown): SourceLine {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return { error: "a user must be a JSON object" };
  const user = value as Auth0User;
  const id = user.user_id ?? (typeof user._id === "string" ? user._id : user._id?.$oid);
  const custom = user.custom_password_hash;
  if (custom && !["bcrypt", "argon2"].includes(custom.algorithm ?? "")) {
    return { error: "custom_password_hash.algorithm must be bcrypt or argon2 (argon2id)" };
  }
  const hash = custom?.hash?.value ?? user.password_hash ?? user.passwordHash;
  return JSON.stringify({
    // Auth0 ids read `auth0|<id>`: the part after the connection is the sub when it fits.
    ...(id && {
      sub: stableSub(id.includes("|") && SUB.test(id.slice(id.indexOf("|") + 1)) ? id.slice(id.indexOf("|") + 1) : id),
    }),
    ...(user.family_name && { family_name: user.family_name }),
    ...(user.given_name && { given_name: user.given_name }),
    ...(user.blocked !== undefined && { locked: user.blocked === true }),
    ...(user.email && { email: { value: user.email, verified: user.email_verified === true } }),
    ...(user.phone_number && { phone_number: { value: user.phone_number, verified: user.phone_verified === true } }),
    ...(hash !== undefined && { password_hash: hash }),
  });
}

/** Auth0 users as JSON lines, or as one JSON array (then each element counts as a line). */
export async function* auth0Lines(lines: Lines): AsyncGenerator<SourceLine> {
  let array: string[] | undefined;
  for await (const raw of lines) {
    const text = raw.replace(/^\uFEFF/, "");
    if (array) {
      array.push(text);
      continue;
    }
    if (text.trim().startsWith("[")) {
      array = [text];
      continue;
    }
    if (text.trim() === "") {
      yield "";
      continue;
    }
    try {
      yield auth0Line(JSON.parse(text));
    } catch {
      yield { error: "not valid JSON" };
    }
  }
  if (!array) return;
  let users: unknown;
  try {
    users = JSON.parse(array.join("\n"));
  } catch {
    yield { error: "the JSON array is not valid JSON" };
    return;
  }
  for (const user of users as unknown[]) yield auth0Line(user);
}
