import { SUB_PATTERN } from "../accounts/new-account";
import type { ScimRecord } from "./ports";
import { scimProblems } from "./problems";
import { attribute, isRecord, keptAttributes, metaOf } from "./resources";

/** The SCIM Group resource (RFC 7643 4.2) as we keep it and answer it: a name and its members, users of the organization. */

export const GROUP_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Group";
export const DISPLAY_NAME = "displayName";
/** One item holds a group with its members (a DynamoDB item is at most 400 KB): a larger group is refused. */
export const MAX_MEMBERS = 5_000;
const MAX_ATTRIBUTES_BYTES = 350 * 1024;
const MEMBER_ID = new RegExp(SUB_PATTERN);

export interface GroupMember {
  value: string;
  display?: string;
  type?: string;
}

/** A group's members, one entry per user (the first wins), each naming a user id. */
function membersOf(raw: unknown): GroupMember[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw) || !raw.every(isRecord)) throw scimProblems.invalidValue("members must be a list of objects");
  const seen = new Map<string, GroupMember>();
  for (const entry of raw) {
    const value = attribute(entry, "value");
    if (typeof value !== "string" || !MEMBER_ID.test(value))
      throw scimProblems.invalidValue("each member's value must be the id of a user");
    const display = attribute(entry, "display");
    const type = attribute(entry, "type");
    if (!seen.has(value))
      seen.set(value, {
        value,
        ...(typeof display === "string" && { display }),
        ...(typeof type === "string" && { type }),
      });
  }
  if (seen.size > MAX_MEMBERS) throw scimProblems.invalidValue(`a group holds at most ${MAX_MEMBERS} members`);
  return [...seen.values()];
}

/** What a provider sent for a group, checked: a displayName, members that name users. */
export function groupAttributes(body: Record<string, unknown>): Record<string, unknown> {
  const kept = keptAttributes(body, { nameAttribute: DISPLAY_NAME, dropped: [], maxBytes: MAX_ATTRIBUTES_BYTES });
  const key = Object.keys(kept).find((k) => k.toLowerCase() === "members");
  const members = membersOf(key === undefined ? undefined : kept[key]);
  if (key !== undefined) delete kept[key];
  return members.length > 0 ? { ...kept, members } : kept;
}

export const memberIds = (attributes: Record<string, unknown>): string[] =>
  ((attributes.members as GroupMember[] | undefined) ?? []).map((m) => m.value);

export function groupView(record: ScimRecord, baseUrl: string): Record<string, unknown> {
  const members = ((record.attributes.members as GroupMember[] | undefined) ?? []).map((member) => ({
    ...member,
    $ref: `${baseUrl}/Users/${encodeURIComponent(member.value)}`,
  }));
  return {
    schemas: [GROUP_SCHEMA],
    id: record.id,
    ...record.attributes,
    members,
    meta: metaOf(record, "Group", baseUrl),
  };
}
