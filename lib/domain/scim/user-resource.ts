import { normalizeEmail } from "../accounts/contacts";
import type { ScimRecord } from "./ports";
import { scimProblems } from "./problems";
import { attribute, isRecord, keptAttributes, metaOf } from "./resources";

/** The SCIM User resource (RFC 7643 4.1, 4.3) as we keep it and answer it. */

export const USER_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:User";
export const ENTERPRISE_SCHEMA = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";
export const USER_NAME = "userName";

/**
 * Never kept from a provider: `groups` is the groups' to say (RFC 7643 4.1.2), and a
 * password is dropped unread (people sign in through the organization, never with a
 * password a provider chose; Okta's password sync sends one).
 */
const DROPPED = ["groups", "password"];
/** Stored as a whole; a DynamoDB item holds 400 KB, and no user needs more than this. */
const MAX_ATTRIBUTES_BYTES = 32 * 1024;
const TEXT_MAX = 256;

export interface AccountFields {
  given_name?: string;
  family_name?: string;
  middle_name?: string;
  email?: string;
  locked: boolean;
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value.trim().slice(0, TEXT_MAX) : undefined;
}

/** What a provider sent for a user, checked: a userName, `active` a boolean, `name` an object, `emails` a list. */
export function userAttributes(body: Record<string, unknown>): Record<string, unknown> {
  const kept = keptAttributes(body, { nameAttribute: USER_NAME, dropped: DROPPED, maxBytes: MAX_ATTRIBUTES_BYTES });
  const active = attribute(kept, "active");
  if (active !== undefined && typeof active !== "boolean") throw scimProblems.invalidValue("active must be a boolean");
  const name = attribute(kept, "name");
  if (name !== undefined && !isRecord(name)) throw scimProblems.invalidValue("name must be an object");
  const emails = attribute(kept, "emails");
  if (emails !== undefined && !(Array.isArray(emails) && emails.every(isRecord)))
    throw scimProblems.invalidValue("emails must be a list of objects");
  return kept;
}

/** The address the account gets: the primary one, else a work one, else the first; else a userName that is one. */
function emailOf(attributes: Record<string, unknown>): string | undefined {
  const emails = (attribute(attributes, "emails") as Array<Record<string, unknown>> | undefined) ?? [];
  const chosen =
    emails.find((e) => attribute(e, "primary") === true) ??
    emails.find((e) => attribute(e, "type") === "work") ??
    emails[0];
  const value = text(chosen && attribute(chosen, "value")) ?? text(attribute(attributes, USER_NAME));
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

/** The resource as GET answers it (RFC 7644 3.4.1). */
export function userView(record: ScimRecord, baseUrl: string): Record<string, unknown> {
  const { attributes } = record;
  const schemas = [USER_SCHEMA, ...(attribute(attributes, ENTERPRISE_SCHEMA) === undefined ? [] : [ENTERPRISE_SCHEMA])];
  return {
    schemas,
    id: record.id,
    ...attributes,
    active: attribute(attributes, "active") !== false,
    meta: metaOf(record, "User", baseUrl),
  };
}
