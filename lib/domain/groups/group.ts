/**
 * Groups (interface §2.3): an id unique within its profile, an optional name, and the
 * profile's own attributes as plain fields. A group is named by (profile, id), as the
 * rights key `grps|<group_id>|<profile>` names it.
 */

/** An organization is a group of this profile (DESIGN 6b, SPEC 4.8 unchanged). */
export const ORGANIZATION_PROFILE = "org";

export const GROUP_ID_PATTERN = "^[A-Za-z0-9][A-Za-z0-9._@~+-]{0,127}$";
export const PROFILE_PATTERN = "^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$";
/** Profile attribute names: plain identifiers, so they read well in RQL. */
export const ATTRIBUTE_NAME_PATTERN = "^[A-Za-z_][A-Za-z0-9_.-]{0,63}$";
export const MAX_ATTRIBUTES = 64;
export const MAX_ATTRIBUTE_LENGTH = 1024;
/** One DynamoDB transaction holds 100 items: the group check and three per added member. */
export const MAX_MEMBERS_PER_CALL = 33;
/**
 * The most members one listing answers, and its default: a page stays far under a
 * synchronous response's size limit and within one Query page, whatever the group's size.
 */
export const MEMBERS_PER_PAGE = 1000;
/**
 * An account's groups per page by default (one BatchGetItem when expanded) and at most
 * (as a member list's page): an account may be imported into any number of groups.
 */
export const MEMBERSHIPS_PER_PAGE = 100;
export const MAX_MEMBERSHIPS_PER_PAGE = 1000;

/** Fields the service owns; a profile attribute cannot take these names. */
export const RESERVED_FIELDS = ["id", "profile", "name", "instanceId"] as const;

export type AttributeValue = string | number | boolean;

export interface Group {
  id: string;
  profile: string;
  name?: string;
  attributes: Record<string, AttributeValue>;
  createdAt: number;
  updatedAt: number;
}

const INSTANCE_PREFIX = "g1.";

/** Opaque to callers; derived from (profile, id) so it costs no storage. */
export function groupInstanceId(profile: string, id: string): string {
  return INSTANCE_PREFIX + Buffer.from(`${profile}|${id}`, "utf8").toString("base64url");
}

/** The group object of interface §2.3; `expand` adds the profile attributes as plain fields. */
export function groupView(group: Group, expand: boolean): Record<string, AttributeValue> {
  const view: Record<string, AttributeValue> = {
    id: group.id,
    profile: group.profile,
    ...(group.name !== undefined && { name: group.name }),
    instanceId: groupInstanceId(group.profile, group.id),
  };
  if (!expand) return view;
  // The reserved fields come first and win: an attribute never takes their names anyway.
  return { ...view, ...group.attributes, ...view };
}

/** The fields RQL may compare: the group object with every attribute. */
export function groupFields(group: Group): Record<string, unknown> {
  return groupView(group, true);
}
