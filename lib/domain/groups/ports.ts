import type { Account } from "../accounts/account";
import type { AttributeValue, Group } from "./group";

export class GroupExistsError extends Error {
  /** `deleting`: the id belongs to a group whose deletion has not finished. */
  constructor(readonly deleting: boolean) {
    super("group exists");
    this.name = "GroupExistsError";
  }
}

export class GroupNotFoundError extends Error {
  constructor() {
    super("group not found");
    this.name = "GroupNotFoundError";
  }
}

/** The change would leave the group with more attributes than allowed. */
export class GroupFullError extends Error {
  constructor() {
    super("too many attributes");
    this.name = "GroupFullError";
  }
}

/** A member change was refused; every reason found is listed. */
export class MembersRefusedError extends Error {
  constructor(
    readonly unknownUsers: string[],
    readonly alreadyMembers: string[],
    readonly notMembers: string[],
  ) {
    super("member change refused");
    this.name = "MembersRefusedError";
  }
}

export interface GroupChange {
  name?: string | null;
  set: Record<string, AttributeValue>;
  remove: string[];
}

/** A page of a member list: at most `limit` members after the member `after` (a subject id). */
export interface MemberPage {
  limit: number;
  after?: string;
}

export interface MemberPageRead {
  live: boolean;
  subs: string[];
  /** The last member of this page, when more follow: the next page's `after`. */
  next?: string;
}

/** A group of an account's, as the mirror in the account's partition holds it. */
export interface Membership {
  profile: string;
  id: string;
  /** Unix seconds. */
  addedAt: number;
}

/** A group named by its profile and id: a membership's place in an account's list. */
export interface GroupRef {
  profile: string;
  id: string;
}

/** A page of an account's memberships: at most `limit` after `after`, of one profile when given. */
export interface MembershipPage {
  profile?: string;
  limit: number;
  after?: GroupRef;
}

export interface MembershipPageRead {
  memberships: Membership[];
  /** The last membership of this page, when more may follow: the next page's `after`. */
  next?: GroupRef;
}

/** Groups (interface §2.3, 4.8) and their members, membership kept both ways. */
export interface GroupRepository {
  /** Throws GroupExistsError when the id is taken. */
  create(group: Group): Promise<void>;
  /** The group, unless missing or being deleted. */
  get(profile: string, id: string): Promise<Group | undefined>;
  /** Member accounts (an expanded member list). */
  accounts(subs: string[]): Promise<Account[]>;
  /** The groups of a profile, page by page, in id order. */
  pages(profile: string): AsyncGenerator<Group[]>;
  /**
   * Sets and removes fields; `attributes` are the profile's own. Throws
   * GroupNotFoundError, or GroupFullError when the group would have more than
   * `maxAttributes` (each set attribute counted as new).
   */
  update(profile: string, id: string, change: GroupChange, now: number, maxAttributes: number): Promise<Group>;
  /** Live groups among `refs` (missing and deleting ones left out), in no particular order. */
  groups(refs: GroupRef[]): Promise<Group[]>;
  /** One page of an account's memberships in (profile, id) order: one Query of its partition. */
  membershipsOf(sub: string, page: MembershipPage): Promise<MembershipPageRead>;
  /** One page of member subject ids in order, and whether the group is live. */
  members(profile: string, id: string, page: MemberPage): Promise<MemberPageRead>;
  /** Adds members, all or none: GroupNotFoundError, or MembersRefusedError (unknown accounts, members already). */
  addMembers(profile: string, id: string, subs: string[], now: number): Promise<void>;
  /** Removes members, all or none: MembersRefusedError lists those that were not members. */
  removeMembers(profile: string, id: string, subs: string[]): Promise<void>;
  /** Bulk load of members (administration and tests), no checks; not atomic, repeatable. */
  importMembers(profile: string, id: string, subs: string[], now: number): Promise<void>;
  /** Deletes a group with its members and the rights held on it; repeatable. False: no group. */
  delete(profile: string, id: string): Promise<boolean>;
}
