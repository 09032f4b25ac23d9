import type { Account } from "../accounts/account";
import { instanceIdOf } from "../accounts/instance-id";
import type { AccountSearch } from "../accounts/ports";
import { type FieldProblem, problems } from "../errors";
import { searchProblems } from "../search/problems";
import { evaluate, parseRql, RqlError, type RqlQuery } from "../search/rql";
import {
  ATTRIBUTE_NAME_PATTERN,
  type AttributeValue,
  GROUP_ID_PATTERN,
  type Group,
  groupFields,
  groupInstanceId,
  groupView,
  MAX_ATTRIBUTES,
  MEMBERSHIPS_PER_PAGE,
  PROFILE_PATTERN,
  RESERVED_FIELDS,
} from "./group";
import {
  GroupExistsError,
  GroupFullError,
  GroupNotFoundError,
  type GroupRef,
  type GroupRepository,
  type MemberPage,
  MembersRefusedError,
} from "./ports";
import { groupProblems } from "./problems";

export interface GroupDeps {
  groups: GroupRepository;
  /** Account names for `expand=true` member lists. */
  accounts: Pick<AccountSearch, "accounts">;
}

/** Body of group create and change after schema validation: interface §2.3 fields plus profile attributes. */
export type GroupBody = {
  profile: string;
  id?: string;
  name?: string | null;
  instanceId?: unknown;
} & Record<string, unknown>;

/** Stored as the user directory's id in member records (interface §2.3 storeId): one directory. */
export const STORE_ID = "svc";

const ATTRIBUTE_NAME = new RegExp(ATTRIBUTE_NAME_PATTERN);

function now(): number {
  return Math.floor(Date.now() / 1000);
}

/** Profile attributes of a body: everything but the reserved fields. */
function attributesOf(body: GroupBody, found: FieldProblem[]): Record<string, AttributeValue | null> {
  const out: Record<string, AttributeValue | null> = {};
  for (const [name, value] of Object.entries(body)) {
    if ((RESERVED_FIELDS as readonly string[]).includes(name)) continue;
    if (!ATTRIBUTE_NAME.test(name)) {
      found.push({
        error: "wrong_value",
        pos: name,
        desc: `${name} is not an attribute name (letters, digits, _ . -)`,
      });
      continue;
    }
    out[name] = value as AttributeValue | null;
  }
  return out;
}

function memberResult(sub: string) {
  return { instanceId: instanceIdOf(sub), storeId: STORE_ID, subjectId: sub };
}

/** A member with the names its account holds (an expanded member list). */
export function memberWithNames(subjectId: string, account: Account | undefined) {
  return {
    subjectId,
    ...(account?.family_name !== undefined && { family_name: account.family_name }),
    ...(account?.middle_name !== undefined && { middle_name: account.middle_name }),
    ...(account?.given_name !== undefined && { given_name: account.given_name }),
  };
}

export async function readGroup(deps: GroupDeps, profile: string, id: string, expand: boolean) {
  const group = await deps.groups.get(profile, id);
  if (!group) throw groupProblems.notFound(id, profile);
  return groupView(group, expand);
}

function parseGroupQuery(rql: string | undefined): RqlQuery {
  try {
    return parseRql(rql ?? "");
  } catch (error) {
    if (error instanceof RqlError) throw searchProblems.malformed("rql", error);
    throw error;
  }
}

/**
 * The groups of a profile that match `rql` (and, or, eq over id, name and profile
 * attributes; limit(count[,offset])), in id order. The profile's groups are read page by
 * page and matched here; with limit, reading stops once enough matched.
 */
export async function listGroups(deps: GroupDeps, profile: string, rql: string | undefined, expand: boolean) {
  const query = parseGroupQuery(rql);
  const offset = query.offset ?? 0;
  const wanted = query.limit === undefined ? Number.POSITIVE_INFINITY : offset + query.limit;
  const matched: Group[] = [];
  for await (const page of deps.groups.pages(profile)) {
    for (const group of page) {
      const fields = groupFields(group);
      if (!query.filter || evaluate(query.filter, (name) => fields[name as keyof typeof fields])) matched.push(group);
      if (matched.length >= wanted) break;
    }
    if (matched.length >= wanted) break;
  }
  return matched
    .slice(offset, wanted)
    .map((group) =>
      expand ? groupView(group, true) : { id: group.id, instanceId: groupInstanceId(profile, group.id) },
    );
}

export async function createGroup(deps: GroupDeps, body: GroupBody) {
  const found: FieldProblem[] = [];
  const attributes = attributesOf(body, found);
  if (Object.keys(attributes).length > MAX_ATTRIBUTES) {
    found.push({ error: "wrong_value", pos: "body", desc: `a group has at most ${MAX_ATTRIBUTES} attributes` });
  }
  if (found.length > 0) throw problems.wrongValues(found);
  const at = now();
  const group: Group = {
    id: body.id as string,
    profile: body.profile,
    ...(typeof body.name === "string" && { name: body.name }),
    attributes: attributes as Record<string, AttributeValue>,
    createdAt: at,
    updatedAt: at,
  };
  try {
    await deps.groups.create(group);
  } catch (error) {
    if (error instanceof GroupExistsError) throw groupProblems.exists(group.id, group.profile, error.deleting);
    throw error;
  }
  return groupView(group, true);
}

/** Sends the fields to change; null removes one. The profile in the body must be the query's. */
export async function changeGroup(deps: GroupDeps, profile: string, id: string, body: GroupBody) {
  const found: FieldProblem[] = [];
  if (body.profile !== profile) {
    found.push({
      error: "wrong_value",
      pos: "profile",
      desc: "profile in the body must equal the profile query parameter",
    });
  }
  if (body.id !== undefined && body.id !== id) {
    found.push({ error: "unmodifiable", pos: "id", desc: "id cannot be changed; it must equal the id in the path" });
  }
  const attributes = attributesOf(body, found);
  if (found.length > 0) throw problems.wrongValues(found);
  const set = Object.fromEntries(Object.entries(attributes).filter(([, v]) => v !== null)) as Record<
    string,
    AttributeValue
  >;
  const remove = Object.keys(attributes).filter((name) => attributes[name] === null);
  try {
    const group = await deps.groups.update(profile, id, { name: body.name, set, remove }, now(), MAX_ATTRIBUTES);
    return groupView(group, true);
  } catch (error) {
    if (error instanceof GroupNotFoundError) throw groupProblems.notFound(id, profile);
    if (error instanceof GroupFullError) {
      throw problems.wrongValue(
        "body",
        `a group keeps at most ${MAX_ATTRIBUTES} attributes, and each one set counts as new: remove some (null) first`,
      );
    }
    throw error;
  }
}

export async function deleteGroup(deps: GroupDeps, profile: string, id: string): Promise<void> {
  if (!(await deps.groups.delete(profile, id))) throw groupProblems.notFound(id, profile);
}

/**
 * interface §2.3 member records, a page at a time; `next` names the page's last member
 * when more follow. One Query reads the page and, on the last page, the group's head;
 * `expand` names cost one BatchGetItem per 100 members.
 */
export async function listMembers(deps: GroupDeps, profile: string, id: string, expand: boolean, page: MemberPage) {
  const { live, subs, next } = await deps.groups.members(profile, id, page);
  if (!live) throw groupProblems.notFound(id, profile);
  if (!expand) return { members: subs.map((subjectId) => ({ subjectId })), next };
  const accounts = new Map((await deps.groups.accounts(subs)).map((a) => [a.sub, a]));
  const members = subs.map((subjectId) => memberWithNames(subjectId, accounts.get(subjectId)));
  return { members, next };
}

function subjectIdsOf(body: Array<{ subjectId: string }>): string[] {
  return [...new Set(body.map((m) => m.subjectId))];
}

/** Adds accounts to a group, all or none (one transaction). */
export async function addMembers(deps: GroupDeps, profile: string, id: string, body: Array<{ subjectId: string }>) {
  const subs = subjectIdsOf(body);
  try {
    await deps.groups.addMembers(profile, id, subs, now());
  } catch (error) {
    if (error instanceof GroupNotFoundError) throw groupProblems.notFound(id, profile);
    if (error instanceof MembersRefusedError) {
      if (error.unknownUsers.length > 0) throw groupProblems.usersNotFound(error.unknownUsers);
      throw groupProblems.alreadyMembers(error.alreadyMembers);
    }
    throw error;
  }
  return subs.map(memberResult);
}

/** Removes accounts from a group, all or none (one transaction). */
export async function removeMembers(deps: GroupDeps, profile: string, id: string, body: Array<{ subjectId: string }>) {
  const subs = subjectIdsOf(body);
  try {
    await deps.groups.removeMembers(profile, id, subs);
  } catch (error) {
    if (error instanceof GroupNotFoundError) throw groupProblems.notFound(id, profile);
    if (error instanceof MembersRefusedError) {
      // Failure path only: tell accounts that do not exist from accounts not in the group.
      const existing = new Set((await deps.accounts.accounts(error.notMembers)).map((a) => a.sub));
      const unknown = error.notMembers.filter((sub) => !existing.has(sub));
      if (unknown.length > 0) throw groupProblems.usersNotFound(unknown);
      throw groupProblems.notMembers(error.notMembers);
    }
    throw error;
  }
  return subs.map(memberResult);
}

/** What a listing of an account's groups asks for (docs/interface.md §4.8a). */
export interface MembershipQuery {
  profile?: string;
  expand: boolean;
  limit?: number;
  cursor?: string;
  /** The caller's session read the account already (user mode): it exists. */
  accountKnown: boolean;
}

const PROFILE = new RegExp(PROFILE_PATTERN);
const GROUP_ID = new RegExp(GROUP_ID_PATTERN);

/** The opaque cursor: the last group of a page, base64url; neither a profile nor an id holds "#". */
const encodeMembershipCursor = (at: GroupRef): string => Buffer.from(`${at.profile}#${at.id}`).toString("base64url");

function decodeMembershipCursor(cursor: string, profile: string | undefined): GroupRef {
  const [at, id, ...rest] = Buffer.from(cursor, "base64url").toString("utf8").split("#");
  // A cursor of another profile's listing would start the Query outside its key range.
  if (rest.length > 0 || !PROFILE.test(at ?? "") || !GROUP_ID.test(id ?? "") || (profile && at !== profile)) {
    throw problems.wrongValue("cursor", "not a cursor this listing answered; start again without one");
  }
  return { profile: at, id };
}

/**
 * An account's groups, a page at a time, from the mirrors in its own partition: one Query.
 * An empty page costs one read more, to tell an account in no group from no account (a
 * mirror exists only with its account: an add checks it, a deletion removes both). With
 * `expand`, each group as GET /svc/api/v2/grps/{id}?expand=true answers it, one
 * BatchGetItem per 100 groups; a group whose deletion has not finished is left out.
 */
export async function listMembershipsOf(deps: GroupDeps, sub: string, query: MembershipQuery) {
  const after = query.cursor === undefined ? undefined : decodeMembershipCursor(query.cursor, query.profile);
  const page = await deps.groups.membershipsOf(sub, {
    profile: query.profile,
    limit: query.limit ?? MEMBERSHIPS_PER_PAGE,
    after,
  });
  if (page.memberships.length === 0 && !query.accountKnown) {
    if ((await deps.accounts.accounts([sub])).length === 0) throw problems.unknownUser(sub);
  }
  const next = page.next && encodeMembershipCursor(page.next);
  const listed = page.memberships.map(({ profile, id, addedAt }) => ({ id, profile, addedAt }));
  if (!query.expand || listed.length === 0) return { groups: listed, ...(next && { next }) };
  const found = new Map((await deps.groups.groups(listed)).map((g) => [`${g.profile}#${g.id}`, g]));
  const groups = listed.flatMap((entry) => {
    const group = found.get(`${entry.profile}#${entry.id}`);
    return group ? [{ ...entry, group: groupView(group, true) }] : [];
  });
  return { groups, ...(next && { next }) };
}

export type GroupUseCases = ReturnType<typeof groupUseCases>;

/** The group calls (interface §4.8), bound to their stores. */
export function groupUseCases(deps: GroupDeps) {
  return {
    read: (profile: string, id: string, expand: boolean) => readGroup(deps, profile, id, expand),
    list: (profile: string, rql: string | undefined, expand: boolean) => listGroups(deps, profile, rql, expand),
    create: (body: GroupBody) => createGroup(deps, body),
    change: (profile: string, id: string, body: GroupBody) => changeGroup(deps, profile, id, body),
    delete: (profile: string, id: string) => deleteGroup(deps, profile, id),
    members: (profile: string, id: string, expand: boolean, page: MemberPage) =>
      listMembers(deps, profile, id, expand, page),
    addMembers: (profile: string, id: string, body: Array<{ subjectId: string }>) =>
      addMembers(deps, profile, id, body),
    removeMembers: (profile: string, id: string, body: Array<{ subjectId: string }>) =>
      removeMembers(deps, profile, id, body),
    membershipsOf: (sub: string, query: MembershipQuery) => listMembershipsOf(deps, sub, query),
  };
}
