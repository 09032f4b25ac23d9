import { randomUUID } from "node:crypto";
import { prepareNewAccount } from "../accounts/new-account";
import {
  type AccountChange,
  AccountConflictError,
  AccountNotFoundError,
  type AccountRepository,
} from "../accounts/ports";
import { problems } from "../errors";
import type { OrganizationJoins } from "../organizations/domain-claim-ports";
import { type DomainDirectory, domainOf } from "../organizations/domain-ports";
import { type OrganizationRepository, OrgChangeRefusedError } from "../organizations/ports";
import type { SessionRepository } from "../sessions/ports";
import { equalityLookup, matches, parseFilter, type ScimFilter, ScimFilterError } from "./filter";
import { applyPatch, type PatchOperation, ScimPatchError } from "./patch";
import { type ScimRepository, type ScimUserRecord, ScimUserRefusedError } from "./ports";
import { scimProblems } from "./problems";
import {
  type AccountFields,
  accountFieldsOf,
  attribute,
  checkIfMatch,
  LIST_SCHEMA,
  projected,
  providedAttributes,
  userView,
} from "./user-resource";

/**
 * SCIM 2.0 users of one organization (RFC 7644, docs/scim.md): each is an account of ours,
 * a member of the organization, with the attributes its provider sent kept beside it. The
 * account takes its names, its address and its lock from them; deprovisioning locks it and
 * ends its sessions at once.
 */

export interface ScimUserDeps {
  scim: Pick<
    ScimRepository,
    "user" | "userByName" | "users" | "newUserItems" | "replaceUser" | "removeUser" | "removeUserItems"
  >;
  accounts: Pick<AccountRepository, "createWith" | "update">;
  domains: Pick<DomainDirectory, "verifiedOwner">;
  joins: OrganizationJoins;
  orgs: Pick<OrganizationRepository, "memberState" | "removeMember">;
  sessions: Pick<SessionRepository, "endSessionsAndDevices">;
  /** `<issuer>/scim/v2`, where `meta.location` points. */
  baseUrl: string;
}

export interface ListQuery {
  filter?: string;
  startIndex?: number;
  count?: number;
  attributes?: string;
  excludedAttributes?: string;
}

/** Page sizes (RFC 7644 3.4.2.4): the default, and the most one page holds (ServiceProviderConfig's maxResults). */
export const DEFAULT_COUNT = 100;
export const MAX_COUNT = 200;
/** A list that is not an equality lookup reads the organization's users; past this many it is refused (tooMany). */
export const SCAN_LIMIT = 10_000;
/** Concurrent changes of one user retry this often before 409. */
const ATTEMPTS = 3;
/** The organization went while the request ran: its token no longer stands for anything. */
class OrganizationGone extends Error {}

const nowSeconds = () => Math.floor(Date.now() / 1000);

function parsed(filter: string): ScimFilter {
  try {
    return parseFilter(filter);
  } catch (error) {
    if (error instanceof ScimFilterError) throw scimProblems.invalidFilter(error.message);
    throw error;
  }
}

function patched(record: ScimUserRecord, operations: readonly PatchOperation[]): Record<string, unknown> {
  try {
    return applyPatch({ id: record.sub, ...record.attributes }, operations);
  } catch (error) {
    if (!(error instanceof ScimPatchError)) throw error;
    const problem = {
      invalidPath: scimProblems.invalidPath,
      noTarget: scimProblems.noTarget,
      invalidValue: scimProblems.invalidValue,
      mutability: scimProblems.mutability,
      invalidSyntax: scimProblems.invalidSyntax,
    }[error.scimType];
    throw problem(error.message);
  }
}

const userNameOf = (attributes: Record<string, unknown>) => String(attribute(attributes, "userName")).trim();

export type ScimUserUseCases = ReturnType<typeof scimUserUseCases>;

export function scimUserUseCases(deps: ScimUserDeps) {
  const view = (record: ScimUserRecord) => userView(record, deps.baseUrl);

  /** An address is the person's when this organization verified its domain (as for a first SSO sign-in). */
  async function vouchedFor(orgId: string, email: string): Promise<boolean> {
    const owner = await deps.domains.verifiedOwner(domainOf(email) ?? "");
    return owner?.orgId === orgId;
  }

  /** The account change that takes it from `before` to `after`; undefined when nothing differs. */
  async function accountChange(orgId: string, before: AccountFields | undefined, after: AccountFields) {
    const change: AccountChange = { set: {}, remove: [] };
    for (const name of ["given_name", "family_name", "middle_name"] as const) {
      if (before?.[name] === after[name]) continue;
      if (after[name] === undefined) change.remove.push(name);
      else change.set[name] = after[name];
    }
    if (before?.locked !== after.locked) change.set.locked = after.locked;
    if (before?.email !== after.email) {
      change.contacts = {
        email: after.email ? { value: after.email, verified: await vouchedFor(orgId, after.email) } : null,
      };
    }
    const empty = Object.keys(change.set).length === 0 && change.remove.length === 0 && !change.contacts;
    return empty ? undefined : change;
  }

  /** Brings the account in line with the resource; an address another account holds is 409 uniqueness. */
  async function syncAccount(record: ScimUserRecord, before: AccountFields | undefined, after: AccountFields) {
    const change = await accountChange(record.orgId, before, after);
    if (!change) return;
    try {
      await deps.accounts.update(record.sub, change);
    } catch (error) {
      if (error instanceof AccountNotFoundError) throw scimProblems.userNotFound(record.sub);
      if (error instanceof AccountConflictError)
        throw scimProblems.uniqueness("the e-mail address belongs to another account");
      throw error;
    }
    if (after.locked && !before?.locked) await endSessions(record.sub);
  }

  const endSessions = (sub: string) =>
    deps.sessions.endSessionsAndDevices(sub, { session: () => true, device: () => false });

  async function found(orgId: string, id: string): Promise<ScimUserRecord> {
    const record = await deps.scim.user(orgId, id);
    if (!record) throw scimProblems.userNotFound(id);
    return record;
  }

  /**
   * A replacement or a patch: the account first (its own conditional write; a conflict
   * leaves both as they were), then the record on condition that it is still the one read.
   * When another change won meanwhile, the account is brought back in line with it.
   */
  async function change(
    orgId: string,
    id: string,
    ifMatch: string | undefined,
    next: (current: ScimUserRecord) => Record<string, unknown>,
  ) {
    for (let attempt = 1; ; attempt++) {
      const current = await found(orgId, id);
      checkIfMatch(current, ifMatch);
      const attributes = providedAttributes(next(current));
      const updated: ScimUserRecord = {
        ...current,
        userName: userNameOf(attributes),
        attributes,
        version: current.version + 1,
        lastModified: Math.max(Date.now(), current.lastModified + 1),
      };
      const before = accountFieldsOf(current.attributes);
      const after = accountFieldsOf(attributes);
      await syncAccount(current, before, after);
      try {
        await deps.scim.replaceUser(current, updated);
        return view(updated);
      } catch (error) {
        if (!(error instanceof ScimUserRefusedError)) throw error;
        const latest = await deps.scim.user(orgId, id);
        if (latest) await syncAccount(latest, after, accountFieldsOf(latest.attributes));
        if (error.reason === "userName")
          throw scimProblems.uniqueness(`userName ${updated.userName} is already provisioned`);
        if (!latest) throw scimProblems.userNotFound(id);
        if (ifMatch !== undefined && ifMatch.trim() !== "*") throw scimProblems.preconditionFailed();
        if (attempt >= ATTEMPTS) throw scimProblems.changedConcurrently();
      }
    }
  }

  return {
    /** POST /Users: a new account, a member of the organization, in one commit with its record. */
    async create(orgId: string, body: Record<string, unknown>) {
      const attributes = providedAttributes(body);
      const fields = accountFieldsOf(attributes);
      const now = Date.now();
      const prepared = prepareNewAccount(
        {
          given_name: fields.given_name,
          family_name: fields.family_name,
          middle_name: fields.middle_name,
          locked: fields.locked,
          ...(fields.email && { email: { value: fields.email, verified: await vouchedFor(orgId, fields.email) } }),
        },
        Math.floor(now / 1000),
        randomUUID,
      );
      if ("problems" in prepared) throw scimProblems.invalidValue(prepared.problems[0].desc);
      const { sub } = prepared.account;
      const record: ScimUserRecord = {
        orgId,
        sub,
        userName: userNameOf(attributes),
        attributes,
        version: 1,
        created: now,
        lastModified: now,
      };
      const own = deps.scim.newUserItems(record);
      const joined = deps.joins.joinItems(orgId, sub, nowSeconds());
      try {
        await deps.accounts.createWith(prepared.account, undefined, [...own, ...joined], (failed) =>
          failed.some((i) => i < own.length) ? new ScimUserRefusedError("userName") : new OrganizationGone(),
        );
      } catch (error) {
        if (error instanceof ScimUserRefusedError)
          throw scimProblems.uniqueness(`userName ${record.userName} is already provisioned`);
        if (error instanceof AccountConflictError)
          throw scimProblems.uniqueness("the e-mail address belongs to another account");
        if (error instanceof OrganizationGone) throw problems.badAccessToken("the organization no longer exists");
        throw error;
      }
      return view(record);
    },

    async get(orgId: string, id: string, wanted: Pick<ListQuery, "attributes" | "excludedAttributes"> = {}) {
      return projected(view(await found(orgId, id)), wanted);
    },

    /**
     * GET /Users: an equality on id, userName or externalId... is one or two reads; any
     * other filter, or none, reads the organization's users page by page (tooMany past
     * SCAN_LIMIT). Pages are 1-based by startIndex (RFC 7644 3.4.2.4).
     */
    async list(orgId: string, query: ListQuery) {
      const filter = query.filter === undefined ? undefined : parsed(query.filter);
      const startIndex = Math.max(1, query.startIndex ?? 1);
      const count = Math.min(MAX_COUNT, Math.max(0, query.count ?? DEFAULT_COUNT));
      const lookup = filter && equalityLookup(filter);
      let matched: ScimUserRecord[];
      if (lookup?.attribute === "id" || lookup?.attribute === "userName") {
        const one =
          lookup.attribute === "id"
            ? await deps.scim.user(orgId, lookup.value)
            : await deps.scim.userByName(orgId, lookup.value);
        matched = one && matches(filter as ScimFilter, view(one)) ? [one] : [];
      } else {
        matched = await scan(orgId, filter);
      }
      const page = matched.slice(startIndex - 1, startIndex - 1 + count);
      return {
        schemas: [LIST_SCHEMA],
        totalResults: matched.length,
        startIndex,
        itemsPerPage: page.length,
        Resources: page.map((record) => projected(view(record), query)),
      };
    },

    async replace(orgId: string, id: string, body: Record<string, unknown>, ifMatch?: string) {
      return change(orgId, id, ifMatch, () => body);
    },

    async patch(orgId: string, id: string, operations: readonly PatchOperation[], ifMatch?: string) {
      return change(orgId, id, ifMatch, (current) => patched(current, operations));
    },

    /**
     * DELETE /Users/{id}: the account is locked (its tokens are refused from this moment),
     * its sessions end, it leaves the organization and its record goes. The account itself
     * stays, locked, for its history; an operator deletes it with the users API.
     */
    async remove(orgId: string, id: string, ifMatch?: string) {
      for (let attempt = 1; ; attempt++) {
        const current = await found(orgId, id);
        checkIfMatch(current, ifMatch);
        await lock(current.sub);
        if (await leave(current)) return;
        if (ifMatch !== undefined && ifMatch.trim() !== "*") throw scimProblems.preconditionFailed();
        if (attempt >= ATTEMPTS) throw scimProblems.changedConcurrently();
      }
    },
  };

  async function lock(sub: string) {
    try {
      await deps.accounts.update(sub, { set: { locked: true }, remove: [] });
    } catch (error) {
      // An operator deleted the account already: nothing is left to lock.
      if (!(error instanceof AccountNotFoundError)) throw error;
    }
    await endSessions(sub);
  }

  /**
   * The membership and the record go in one commit, on condition that the record is still
   * the one read; false when it moved on (read again).
   */
  async function leave(record: ScimUserRecord): Promise<boolean> {
    const state = await deps.orgs.memberState(record.orgId, record.sub);
    try {
      if (!state) await deps.scim.removeUser(record);
      else
        await deps.orgs.removeMember(record.orgId, record.sub, state, {
          customRights: [],
          alsoWrite: deps.scim.removeUserItems(record),
        });
      return true;
    } catch (error) {
      if (error instanceof ScimUserRefusedError) return false;
      if (!(error instanceof OrgChangeRefusedError)) throw error;
      if (error.reasons.includes("org")) throw problems.badAccessToken("the organization no longer exists");
      // The record moved on, or the membership did (left or roles changed): read both again.
      return false;
    }
  }

  async function scan(orgId: string, filter: ScimFilter | undefined): Promise<ScimUserRecord[]> {
    const matched: ScimUserRecord[] = [];
    let read = 0;
    let after: string | undefined;
    do {
      const page = await deps.scim.users(orgId, 1000, after);
      read += page.records.length;
      if (read > SCAN_LIMIT) throw scimProblems.tooMany(SCAN_LIMIT);
      for (const record of page.records) if (!filter || matches(filter, view(record))) matched.push(record);
      after = page.next;
    } while (after);
    return matched;
  }
}
