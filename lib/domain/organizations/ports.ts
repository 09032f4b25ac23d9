import type { PendingWrite, Prefetch } from "../unit-of-work";

/**
 * Why an organization change was refused, by the condition that failed: the organization
 * (gone, or the caller no longer administers it), the account, the membership, a custom
 * right's catalogue entry, state that moved on since it was read (try again), or a write
 * that rode along in `alsoWrite` (an invitation consumed once).
 */
/** `absent`: the organization's SSO connection to remove was not there. */
export type OrgRefusal = "org" | "account" | "alreadyMember" | "notMember" | "right" | "stale" | "alsoWrite" | "absent";

export class OrgChangeRefusedError extends Error {
  constructor(
    readonly reasons: OrgRefusal[],
    /** The custom rights whose catalogue check failed. */
    readonly rights: string[] = [],
  ) {
    super("organization change refused");
    this.name = "OrgChangeRefusedError";
  }
}

/** A member's roles over the organization and the revision its member item carries. */
export interface MemberState {
  /** Bumped by every role change through these routes; 0 before the first. */
  rev: number;
  roles: string[];
}

/** What must still hold when a change commits, and what rides in the same transaction. */
export interface OrgGuard {
  /** User mode: the caller, whose ORG_ADMIN over the organization must still exist. */
  admin?: string;
  /** An ORG_ADMIN holder (its subject key) left in place: its grant must still exist. */
  keepAdmin?: string;
  /** Custom rights among those granted: their catalogue entries must apply to users over groups. */
  customRights: string[];
  /** A user-mode call's security event. */
  alsoWrite: PendingWrite[];
}

/**
 * Organizations (docs/organizations.md): groups of profile org whose roles are rights over
 * the group. Every write is one transaction with conditions; nothing is read and written blind.
 */
export interface OrganizationRepository {
  /** Whether `sub` holds ORG_ADMIN over the organization, read inside the session check's BatchGetItem. */
  adminPrefetch(sub: string, orgId: string): Prefetch<boolean>;
  /** The same, as one strongly consistent GetItem. */
  isAdmin(sub: string, orgId: string): Promise<boolean>;
  /** The rights held over the organization by each of `subs` (sorted): one Query of the holders in their range. */
  rolesOf(orgId: string, subs: string[]): Promise<Map<string, string[]>>;
  /** A member's roles and revision, or undefined when `sub` is no member. */
  memberState(orgId: string, sub: string): Promise<MemberState | undefined>;
  /** An ORG_ADMIN holder's subject key other than those of `except`, if any. */
  otherAdmin(orgId: string, except: string[]): Promise<string | undefined>;
  addMember(orgId: string, sub: string, roles: string[], now: number, guard: OrgGuard): Promise<void>;
  /** Removes the membership and every role in `state`; refused as stale if the member's roles moved on. */
  removeMember(orgId: string, sub: string, state: MemberState, guard: OrgGuard): Promise<void>;
  setRoles(
    orgId: string,
    sub: string,
    state: MemberState,
    add: string[],
    remove: string[],
    guard: OrgGuard,
  ): Promise<void>;
}
