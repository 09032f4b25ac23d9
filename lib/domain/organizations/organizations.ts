import { SUB_PATTERN } from "../accounts/new-account";
import type { SecurityEventLog } from "../audit/ports";
import type { SecurityEvent } from "../audit/security-event";
import { problems } from "../errors";
import { groupView, ORGANIZATION_PROFILE } from "../groups/group";
import { memberWithNames } from "../groups/groups";
import type { GroupRepository } from "../groups/ports";
import { groupProblems } from "../groups/problems";
import { appliesTo, builtinRight } from "../rights/catalogue";
import type { RightDefinitionRepository } from "../rights/ports";
import { rightProblems } from "../rights/problems";
import type { Prefetch } from "../unit-of-work";
import { type MemberState, type OrganizationRepository, OrgChangeRefusedError, type OrgGuard } from "./ports";
import { orgProblems } from "./problems";

export const ORG_ADMIN = "ORG_ADMIN";
/** Roles are granted with this tag: a grant exists while it holds a tag (interface §2.4). */
export const ROLE_TAG = "org";
/** Members per page by default and at most: one BatchGetItem of their names. */
export const ORG_MEMBERS_PER_PAGE = 100;
/** Roles per call: the transaction keeps under DynamoDB's 100 items (2 per role, 1 per custom right). */
export const MAX_ROLES = 20;

export interface OrganizationDeps {
  orgs: OrganizationRepository;
  groups: Pick<GroupRepository, "get" | "members" | "accounts">;
  rightDefinitions: Pick<RightDefinitionRepository, "get">;
  events: Pick<SecurityEventLog, "putItem">;
}

/** Who calls: an application (system mode), or an organization admin's user token. */
export type OrgCaller =
  | { mode: "system" }
  | {
      mode: "user";
      sub: string;
      /** ORG_ADMIN as the session check read it; undefined when nothing was prefetched. */
      prefetched?: boolean;
      /** The call's security event without its organization fields. */
      event: SecurityEvent;
    };

/** Concurrent role changes of one member retry this many times before 409. */
const ATTEMPTS = 3;
const SUB = new RegExp(SUB_PATTERN);

/**
 * A user token may act only on an organization it administers now: ORG_ADMIN read with
 * the session (or once more here). Any other organization answers as a missing one.
 */
export async function authorize(deps: Pick<OrganizationDeps, "orgs">, caller: OrgCaller, orgId: string): Promise<void> {
  if (caller.mode === "system") return;
  const held = caller.prefetched ?? (await deps.orgs.isAdmin(caller.sub, orgId));
  if (!held) throw groupProblems.notFound(orgId, ORGANIZATION_PROFILE);
}

/** The guard every change carries: the caller's ORG_ADMIN, and its security event with the org's fields. */
export function guardOf(
  deps: Pick<OrganizationDeps, "events">,
  caller: OrgCaller,
  orgId: string,
  target: string,
  roles: string[] | undefined,
): OrgGuard {
  if (caller.mode === "system") return { customRights: [], alsoWrite: [] };
  const event: SecurityEvent = {
    ...caller.event,
    prms: { ...caller.event.prms, org: orgId, target, ...(roles && { roles }) },
  };
  return { admin: caller.sub, customRights: [], alsoWrite: [deps.events.putItem(event)] };
}

/**
 * Roles are rights over the organization's group held by a user: built-in ones are checked
 * here, custom ones by their catalogue entry inside the transaction that grants them.
 */
export function checkRoles(roles: string[]): { roles: string[]; custom: string[] } {
  const unique = [...new Set(roles)].sort();
  for (const right of unique) {
    const builtin = builtinRight(right);
    if (builtin && !appliesTo(builtin, "user", "grps")) throw orgProblems.notForGroups(right);
  }
  return { roles: unique, custom: unique.filter((right) => !builtinRight(right)) };
}

/** Failure path only: tell a missing custom right from one of other kinds. */
export async function rightProblem(deps: Pick<OrganizationDeps, "rightDefinitions">, right: string): Promise<Error> {
  const definition = await deps.rightDefinitions.get(right);
  return definition ? orgProblems.notForGroups(right) : rightProblems.unknownRight(right);
}

/** What a refused commit means to the caller; undefined: state moved on, read again. */
async function refusalProblem(deps: OrganizationDeps, error: OrgChangeRefusedError, orgId: string, sub: string) {
  const { reasons } = error;
  if (reasons.includes("org")) return groupProblems.notFound(orgId, ORGANIZATION_PROFILE);
  if (reasons.includes("account")) return groupProblems.usersNotFound([sub]);
  if (reasons.includes("alreadyMember")) return groupProblems.alreadyMembers([sub]);
  if (reasons.includes("notMember")) return groupProblems.notMembers([sub]);
  if (reasons.includes("right")) return rightProblem(deps, error.rights[0]);
  return undefined;
}

/** The organization as GET /svc/api/v2/grps/{id}?profile=org&expand=true answers it. */
export async function readOrganization(deps: OrganizationDeps, caller: OrgCaller, orgId: string) {
  await authorize(deps, caller, orgId);
  const group = await deps.groups.get(ORGANIZATION_PROFILE, orgId);
  if (!group) throw groupProblems.notFound(orgId, ORGANIZATION_PROFILE);
  return groupView(group, true);
}

const encodeCursor = (sub: string) => Buffer.from(sub).toString("base64url");

function decodeCursor(cursor: string): string {
  const sub = Buffer.from(cursor, "base64url").toString("utf8");
  if (!SUB.test(sub))
    throw problems.wrongValue("cursor", "not a cursor this listing answered; start again without one");
  return sub;
}

/**
 * A page of members with their names and roles: one Query of the member list, then the
 * page's accounts (one BatchGetItem) and the rights held over the group in the page's
 * range of subject ids (one Query) side by side.
 */
export async function listOrgMembers(
  deps: OrganizationDeps,
  caller: OrgCaller,
  orgId: string,
  page: { limit?: number; cursor?: string },
) {
  const after = page.cursor === undefined ? undefined : decodeCursor(page.cursor);
  await authorize(deps, caller, orgId);
  const { live, subs, next } = await deps.groups.members(ORGANIZATION_PROFILE, orgId, {
    limit: page.limit ?? ORG_MEMBERS_PER_PAGE,
    after,
  });
  if (!live) throw groupProblems.notFound(orgId, ORGANIZATION_PROFILE);
  const [accounts, roles] =
    subs.length === 0
      ? [[], new Map<string, string[]>()]
      : await Promise.all([deps.groups.accounts(subs), deps.orgs.rolesOf(orgId, subs)]);
  const names = new Map(accounts.map((a) => [a.sub, a]));
  const members = subs.map((subjectId) => ({
    ...memberWithNames(subjectId, names.get(subjectId)),
    roles: roles.get(subjectId) ?? [],
  }));
  return { members, ...(next !== undefined && { next: encodeCursor(next) }) };
}

/** Adds an existing account with roles: one transaction (membership both ways, each role's grant). */
export async function addOrgMember(
  deps: OrganizationDeps,
  caller: OrgCaller,
  orgId: string,
  body: { subjectId: string; roles?: string[] },
) {
  await authorize(deps, caller, orgId);
  const { roles, custom } = checkRoles(body.roles ?? []);
  const guard = { ...guardOf(deps, caller, orgId, body.subjectId, roles), customRights: custom };
  try {
    await deps.orgs.addMember(orgId, body.subjectId, roles, Math.floor(Date.now() / 1000), guard);
  } catch (error) {
    if (!(error instanceof OrgChangeRefusedError)) throw error;
    throw (await refusalProblem(deps, error, orgId, body.subjectId)) ?? rightProblems.changedConcurrently();
  }
  return { subjectId: body.subjectId, roles };
}

/**
 * The ORG_ADMIN left in place when `target` loses it: the caller when it is another admin
 * (its own grant is checked anyway), else another holder; none is 409 last_org_admin.
 */
async function keptAdmin(deps: OrganizationDeps, caller: OrgCaller, orgId: string, target: string) {
  if (caller.mode === "user" && caller.sub !== target) return caller.sub;
  const other = await deps.orgs.otherAdmin(orgId, [target]);
  if (!other) throw orgProblems.lastAdmin(orgId);
  return other;
}

/**
 * Runs a change of one member's roles against the state read just before; the member's
 * revision guards it, so a change in between makes it read again rather than act on
 * stale roles.
 */
async function withMemberState(
  deps: OrganizationDeps,
  orgId: string,
  sub: string,
  change: (state: MemberState) => Promise<void>,
): Promise<void> {
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const state = await deps.orgs.memberState(orgId, sub);
    if (!state) throw groupProblems.notMembers([sub]);
    try {
      await change(state);
      return;
    } catch (error) {
      if (!(error instanceof OrgChangeRefusedError)) throw error;
      const problem = await refusalProblem(deps, error, orgId, sub);
      if (problem) throw problem;
    }
  }
  throw rightProblems.changedConcurrently();
}

/** Removes a member and every role it held over the organization, in one transaction. */
export async function removeOrgMember(deps: OrganizationDeps, caller: OrgCaller, orgId: string, sub: string) {
  await authorize(deps, caller, orgId);
  const base = guardOf(deps, caller, orgId, sub, undefined);
  await withMemberState(deps, orgId, sub, async (state) => {
    const losesAdmin = state.roles.includes(ORG_ADMIN);
    const keepAdmin = losesAdmin ? await keptAdmin(deps, caller, orgId, sub) : undefined;
    // The caller's own grant goes in this transaction: its delete's condition is the check.
    const admin = losesAdmin && base.admin === sub ? undefined : base.admin;
    await deps.orgs.removeMember(orgId, sub, state, { ...base, admin, keepAdmin });
  });
}

/** Sets a member's roles: grants the new ones and revokes the others, in one transaction. */
export async function setOrgRoles(
  deps: OrganizationDeps,
  caller: OrgCaller,
  orgId: string,
  sub: string,
  body: { roles: string[] },
) {
  await authorize(deps, caller, orgId);
  const { roles, custom } = checkRoles(body.roles);
  const base = guardOf(deps, caller, orgId, sub, roles);
  await withMemberState(deps, orgId, sub, async (state) => {
    const add = roles.filter((right) => !state.roles.includes(right));
    const remove = state.roles.filter((right) => !roles.includes(right));
    const losesAdmin = remove.includes(ORG_ADMIN);
    const keepAdmin = losesAdmin ? await keptAdmin(deps, caller, orgId, sub) : undefined;
    const admin = losesAdmin && base.admin === sub ? undefined : base.admin;
    const guard = { ...base, admin, keepAdmin, customRights: custom.filter((right) => add.includes(right)) };
    await deps.orgs.setRoles(orgId, sub, state, add, remove, guard);
  });
  return { subjectId: sub, roles };
}

export type OrganizationUseCases = ReturnType<typeof organizationUseCases>;

/** The organization admin calls (docs/organizations.md), bound to their stores. */
export function organizationUseCases(deps: OrganizationDeps) {
  return {
    adminPrefetch: (sub: string, orgId: string): Prefetch<boolean> => deps.orgs.adminPrefetch(sub, orgId),
    read: (caller: OrgCaller, orgId: string) => readOrganization(deps, caller, orgId),
    members: (caller: OrgCaller, orgId: string, page: { limit?: number; cursor?: string }) =>
      listOrgMembers(deps, caller, orgId, page),
    addMember: (caller: OrgCaller, orgId: string, body: { subjectId: string; roles?: string[] }) =>
      addOrgMember(deps, caller, orgId, body),
    removeMember: (caller: OrgCaller, orgId: string, sub: string) => removeOrgMember(deps, caller, orgId, sub),
    setRoles: (caller: OrgCaller, orgId: string, sub: string, body: { roles: string[] }) =>
      setOrgRoles(deps, caller, orgId, sub, body),
  };
}
