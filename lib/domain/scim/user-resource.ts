import { normalizeEmail } from "../accounts/contacts";
import type { ScimUserRecord } from "./ports";
import { scimProblems } from "./problems";

/** The SCIM User resource (RFC 7643 4.1, 4.3) as we keep it and answer it. */

export const USER_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:User";
export const ENTERPRISE_SCHEMA = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";
export const LIST_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:ListResponse";
export const PATCH_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:PatchOp";

/**
 * Attributes never kept from a provider: the service assigns the first four (RFC 7643 3.1),
 * and a password is dropped unread (people sign in through the organization, never with a
 * password a provider chose; Okta's password sync sends one).
 */
const DROPPED = ["id", "meta", "schemas", "groups", "password"];
/** Stored as a whole; a DynamoDB item holds 400 KB, and no user needs more than this. */
const MAX_ATTRIBUTES_BYTES = 32 * 1024;
const NAME_MAX = 256;

export interface AccountFields {
  given_name?: string;
  family_name?: string;
  middle_name?: string;
  email?: string;
  locked: boolean;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function text(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value.trim().slice(0, NAME_MAX) : undefined;
}

/** Attribute names are case-insensitive (RFC 7643 2.1): the value of `name` however it is spelt. */
export function attribute(resource: Record<string, unknown>, name: string): unknown {
  const wanted = name.toLowerCase();
  const key = Object.keys(resource).find((k) => k.toLowerCase() === wanted);
  return key === undefined ? undefined : resource[key];
}

/** Nesting any user needs; storage refuses deeper values. */
const MAX_DEPTH = 8;
/** RFC 7643 2.1 attribute names (and `$ref`), or a schema URN naming an extension. */
const ATTRIBUTE_NAME = /^(?:urn:[A-Za-z0-9:._-]{1,250}|\$?[A-Za-z][A-Za-z0-9_-]{0,127})$/;
/** Numbers storage keeps exactly (38 digits, magnitudes 1e-130 to 1e126). */
const storableNumber = (n: number) => Number.isFinite(n) && (n === 0 || (Math.abs(n) < 1e125 && Math.abs(n) > 1e-125));

function storable(value: unknown, depth: number): boolean {
  if (typeof value === "number") return storableNumber(value);
  if (typeof value !== "object" || value === null) return true;
  if (depth >= MAX_DEPTH) return false;
  if (Array.isArray(value)) return value.every((v) => storable(v, depth + 1));
  return Object.entries(value).every(([k, v]) => ATTRIBUTE_NAME.test(k) && storable(v, depth + 1));
}

/** What a provider sent, less what is dropped, checked: a userName, `active` a boolean, storable and not too large. */
export function providedAttributes(body: Record<string, unknown>): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    if (!DROPPED.includes(key.toLowerCase())) kept[key] = value;
  }
  const userName = attribute(kept, "userName");
  if (typeof userName !== "string" || userName.trim() === "" || userName.length > NAME_MAX)
    throw scimProblems.invalidValue("userName must be a string of 1 to 256 characters");
  const active = attribute(kept, "active");
  if (active !== undefined && typeof active !== "boolean") throw scimProblems.invalidValue("active must be a boolean");
  const name = attribute(kept, "name");
  if (name !== undefined && !isRecord(name)) throw scimProblems.invalidValue("name must be an object");
  const emails = attribute(kept, "emails");
  if (emails !== undefined && !(Array.isArray(emails) && emails.every(isRecord)))
    throw scimProblems.invalidValue("emails must be a list of objects");
  if (!storable(kept, 0))
    throw scimProblems.invalidValue(
      `attribute names must follow RFC 7643 2.1, values nest at most ${MAX_DEPTH} deep and hold ordinary numbers`,
    );
  if (Buffer.byteLength(JSON.stringify(kept)) > MAX_ATTRIBUTES_BYTES)
    throw scimProblems.invalidValue(`the user's attributes exceed ${MAX_ATTRIBUTES_BYTES} bytes`);
  return kept;
}

/** The address the account gets: the primary one, else a work one, else the first; else a userName that is one. */
function emailOf(attributes: Record<string, unknown>): string | undefined {
  const emails = (attribute(attributes, "emails") as Array<Record<string, unknown>> | undefined) ?? [];
  const chosen =
    emails.find((e) => attribute(e, "primary") === true) ??
    emails.find((e) => attribute(e, "type") === "work") ??
    emails[0];
  const value = text(chosen && attribute(chosen, "value")) ?? text(attribute(attributes, "userName"));
  return value ? normalizeEmail(value) : undefined;
}

/** What the account takes from the resource: its names, its address and whether it may sign in. */
export function accountFieldsOf(attributes: Record<string, unknown>): AccountFields {
  const name = (attribute(attributes, "name") as Record<string, unknown> | undefined) ?? {};
  return {
    given_name: text(attribute(name, "givenName")),
    family_name: text(attribute(name, "familyName")),
    middle_name: text(attribute(name, "middleName")),
    email: emailOf(attributes),
    locked: attribute(attributes, "active") === false,
  };
}

const etagOf = (version: number) => `W/"${version}"`;

/** The resource as GET answers it (RFC 7644 3.4.1), `location` under the SCIM base URL. */
export function userView(record: ScimUserRecord, baseUrl: string): Record<string, unknown> {
  const { attributes } = record;
  const schemas = [USER_SCHEMA, ...(attribute(attributes, ENTERPRISE_SCHEMA) === undefined ? [] : [ENTERPRISE_SCHEMA])];
  return {
    schemas,
    id: record.sub,
    ...attributes,
    active: attribute(attributes, "active") !== false,
    meta: {
      resourceType: "User",
      created: new Date(record.created).toISOString(),
      lastModified: new Date(record.lastModified).toISOString(),
      location: `${baseUrl}/Users/${encodeURIComponent(record.sub)}`,
      version: etagOf(record.version),
    },
  };
}

/** RFC 7644 3.14: If-Match names the version a change applies to; `*` any. */
export function checkIfMatch(record: ScimUserRecord, ifMatch: string | undefined): void {
  if (ifMatch === undefined || ifMatch.trim() === "*") return;
  const listed = ifMatch.split(",").map((tag) => tag.trim());
  if (!listed.includes(etagOf(record.version))) throw scimProblems.preconditionFailed();
}

/**
 * RFC 7644 3.4.2.5 `attributes` / `excludedAttributes`: top-level names (a sub-attribute
 * keeps its parent); `id`, `schemas` and `meta` are always returned.
 */
export function projected(
  view: Record<string, unknown>,
  wanted: { attributes?: string; excludedAttributes?: string },
): Record<string, unknown> {
  const names = (list?: string) =>
    list
      ?.split(",")
      .map((n) => n.trim().split(".")[0].toLowerCase())
      .filter(Boolean);
  const keep = names(wanted.attributes);
  const drop = names(wanted.excludedAttributes) ?? [];
  const always = ["id", "schemas", "meta"];
  return Object.fromEntries(
    Object.entries(view).filter(([key]) => {
      const lower = key.toLowerCase();
      if (always.includes(lower)) return true;
      if (keep && keep.length > 0) return keep.includes(lower);
      return !drop.includes(lower);
    }),
  );
}
