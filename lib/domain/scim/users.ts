import { randomUUID } from "node:crypto";
import { isDeepStrictEqual } from "node:util";
import { prepareNewAccount } from "../accounts/new-account";
import {
  type AccountChange,
  AccountConflictError,
  AccountNotFoundError,
  type AccountRepository,
  type AccountSearch,
} from "../accounts/ports";
import type { SecurityEventLog } from "../audit/ports";
import { problems } from "../errors";
import type { OrganizationJoins } from "../organizations/domain-claim-ports";
import { type DomainDirectory, domainOf } from "../organizations/domain-ports";
import { type OrganizationRepository, OrgChangeRefusedError } from "../organizations/ports";
import type { SessionRepository } from "../sessions/ports";
import type { PatchOperation } from "./patch";
import { type ScimRecord, ScimRecordRefusedError, type ScimRecords } from "./ports";
import { scimProblems } from "./problems";
import {
  answerOf,
  type ChangeRules,
  changeRecord,
  type ListQuery,
  listed,
  nameOf,
  type Projection,
  patched,
  projected,
  removeRecord,
  type ScimCaller,
} from "./resources";
import { type AccountFields, accountFieldsOf, USER_NAME, userAttributes, userView } from "./user-resource";

/**
 * SCIM 2.0 users of one organization (RFC 7644, docs/scim.md): each is an account of ours,
 * a member of the organization, with the attributes its provider sent kept beside it. The
 * account takes its names, its address and its lock from them; deprovisioning locks it and
 * ends its sessions at once.
 */

export interface ScimUserDeps {
  users: ScimRecords;
  /** A deprovisioned user leaves the groups it was in. */
  leaveGroups: (orgId: string, id: string) => Promise<void>;
  accounts: Pick<AccountRepository, "createWith" | "update" | "provisionItem">;
  /** The account that already holds a provisioned address, to take it over when the organization vouches for it. */
  contacts: Pick<AccountSearch, "ownerOfContact">;
  domains: Pick<DomainDirectory, "verifiedOwner">;
  joins: OrganizationJoins;
  orgs: Pick<OrganizationRepository, "memberState" | "removeMember">;
  sessions: Pick<SessionRepository, "endSessionsAndDevices">;
  /** Each provisioning step is a security event in the account's trail (interface §6). */
  events: Pick<SecurityEventLog, "putItem" | "record">;
  /** `<issuer>/scim/v2`, where `meta.location` points. */
  baseUrl: string;
}

/** The application a provisioning event names: the organization's SCIM connection. */
const scimClientOf = (orgId: string) => `scim:${orgId}`;

/** The top-level attributes that differ, by name: what a change did, never the values. */
function changedNames(before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  const names = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...names].filter((name) => !isDeepStrictEqual(before[name], after[name])).sort();
}

/** The organization went while the request ran: its token no longer stands for anything. */
class OrganizationGone extends Error {}

const nowSeconds = () => Math.floor(Date.now() / 1000);
const taken = (name: string) => scimProblems.uniqueness(`userName ${name} is already provisioned`);
const addressTaken = () => scimProblems.uniqueness("the e-mail address belongs to another account");

export type ScimUserUseCases = ReturnType<typeof scimUserUseCases>;

export function scimUserUseCases(deps: ScimUserDeps) {
  const eventOf = (caller: ScimCaller, sub: string, type: string, prms: Record<string, string | string[]> = {}) => ({
    sbj: sub,
    ts: Date.now(),
    type,
    cId: scimClientOf(caller.orgId),
    ...(caller.ip && { ip: caller.ip }),
    ...(caller.ua && { ua: caller.ua }),
    result: "ok",
    prms: { org: caller.orgId, ...prms },
  });

  /** A change's event: deactivating and activating are named as such. */
  async function recordChange(caller: ScimCaller, before: ScimRecord, after: ScimRecord) {
    const [was, is] = [accountFieldsOf(before.attributes).locked, accountFieldsOf(after.attributes).locked];
    const type = !was && is ? "scim.user-deactivate" : was && !is ? "scim.user-activate" : "scim.user-change";
    await deps.events.record(
      eventOf(caller, after.id, type, { attrs: changedNames(before.attributes, after.attributes) }),
    );
  }

  const view = (record: ScimRecord) => userView(record, deps.baseUrl);
  const answer = (record: ScimRecord, wanted: Projection = {}) =>
    answerOf(record, "User", deps.baseUrl, projected(view(record), wanted));

  /** An address is the person's when this organization verified its domain (as for a first SSO sign-in). */
  async function vouchedFor(orgId: string, email: string): Promise<boolean> {
    const owner = await deps.domains.verifiedOwner(domainOf(email) ?? "");
    return owner?.orgId === orgId;
  }

  /** The account change that takes it from `before` to `after`; undefined when nothing differs. */
  async function accountChange(orgId: string, before: AccountFields | undefined, after: AccountFields) {
    const change: AccountChange = { set: {}, remove: [], byProvisioning: true };
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
    // The byProvisioning mark is no change of its own.
    return empty ? undefined : change;
  }

  const endSessions = (sub: string) =>
    deps.sessions.endSessionsAndDevices(sub, { session: () => true, device: () => false });

  /** Brings the account in line with the resource; an address another account holds is 409 uniqueness. */
  async function syncAccount(record: ScimRecord, before: AccountFields | undefined, after: AccountFields) {
    const change = await accountChange(record.orgId, before, after);
    if (!change) return;
    try {
      await deps.accounts.update(record.id, change);
    } catch (error) {
      if (error instanceof AccountNotFoundError) throw scimProblems.userNotFound(record.id);
      if (error instanceof AccountConflictError)
        throw scimProblems.uniqueness("the e-mail address belongs to another account");
      throw error;
    }
    if (after.locked && !before?.locked) await endSessions(record.id);
  }

  async function found(orgId: string, id: string): Promise<ScimRecord> {
    const record = await deps.users.get(orgId, id);
    if (!record) throw scimProblems.userNotFound(id);
    return record;
  }

  /**
   * A replacement or a patch: the account first (its own conditional write; a conflict
   * leaves both as they were), then the record on condition that it is still the one read.
   * When another change won meanwhile, the account is brought back in line with it.
   */
  const rules = (orgId: string): ChangeRules => ({
    read: (id) => found(orgId, id),
    kept: userAttributes,
    nameAttribute: USER_NAME,
    before: (current, updated) =>
      syncAccount(current, accountFieldsOf(current.attributes), accountFieldsOf(updated.attributes)),
    refused: async (updated) => {
      const latest = await deps.users.get(orgId, updated.id);
      if (latest) await syncAccount(latest, accountFieldsOf(updated.attributes), accountFieldsOf(latest.attributes));
      else throw scimProblems.userNotFound(updated.id);
    },
    write: deps.users.replace,
    taken,
  });

  async function lock(sub: string) {
    try {
      await deps.accounts.update(sub, { set: { locked: true }, remove: [], byProvisioning: true });
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
  async function leave(record: ScimRecord): Promise<boolean> {
    const state = await deps.orgs.memberState(record.orgId, record.id);
    try {
      if (!state) await deps.users.remove(record);
      else
        await deps.orgs.removeMember(record.orgId, record.id, state, {
          customRights: [],
          alsoWrite: deps.users.removeItems(record),
        });
      return true;
    } catch (error) {
      if (error instanceof ScimRecordRefusedError) return false;
      if (!(error instanceof OrgChangeRefusedError)) throw error;
      if (error.reasons.includes("org")) throw problems.badAccessToken("the organization no longer exists");
      // The record moved on, or the membership did (left or roles changed): read both again.
      return false;
    }
  }

  /**
   * An account that existed before provisioning (an invitation, a registration, a first SSO
   * sign-in) whose verified address is in a domain this organization verified: it becomes
   * the provisioned user, joining the organization if it had not, in one commit conditioned
   * on that address still being its own and verified and on no organization provisioning it.
   */
  async function adopt(caller: ScimCaller, record: ScimRecord, fields: AccountFields): Promise<ScimRecord> {
    const email = fields.email as string;
    const owner = await deps.contacts.ownerOfContact("email", email);
    if (!owner) throw addressTaken();
    const adopted: ScimRecord = { ...record, id: owner };
    const writes = [
      deps.accounts.provisionItem(owner, caller.orgId, email),
      deps.events.putItem(eventOf(caller, owner, "scim.user-adopt")),
    ];
    // Joining rides in the same commit; the account's own condition stands for its existence.
    const member = await deps.orgs.memberState(caller.orgId, owner);
    const joins = member ? [] : deps.joins.joinItems(caller.orgId, owner, nowSeconds());
    try {
      await deps.users.create(adopted, [...writes, ...joins]);
    } catch (error) {
      if (!(error instanceof ScimRecordRefusedError)) throw error;
      // Else the account's condition (provisioned elsewhere, its address moved on) or a join that raced.
      throw error.reason === "name" ? taken(record.name) : addressTaken();
    }
    await syncAccount(adopted, { email, locked: false }, fields);
    return adopted;
  }

  /** The record as it was read and as written: the answer and the change's event. */
  async function changed(
    caller: ScimCaller,
    id: string,
    ifMatch: string | undefined,
    next: (current: ScimRecord) => Record<string, unknown>,
  ) {
    let before: ScimRecord | undefined;
    const after = await changeRecord(rules(caller.orgId), id, ifMatch, (current) => {
      before = current;
      return next(current);
    });
    if (before) await recordChange(caller, before, after);
    return answer(after);
  }

  return {
    /** POST /Users: a new account, a member of the organization, in one commit with its record. */
    async create(caller: ScimCaller, body: Record<string, unknown>) {
      const { orgId } = caller;
      const attributes = userAttributes(body);
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
      prepared.account.scimOrg = orgId;
      const record: ScimRecord = {
        orgId,
        id: prepared.account.sub,
        name: nameOf(attributes, USER_NAME),
        attributes,
        version: 1,
        created: now,
        lastModified: now,
      };
      const own = deps.users.newItems(record);
      const joined = deps.joins.joinItems(orgId, record.id, nowSeconds());
      const recorded = deps.events.putItem(eventOf(caller, record.id, "scim.user-create"));
      try {
        await deps.accounts.createWith(prepared.account, undefined, [...own, ...joined, recorded], (failed) =>
          failed.some((i) => i < own.length) ? new ScimRecordRefusedError("name") : new OrganizationGone(),
        );
      } catch (error) {
        if (error instanceof ScimRecordRefusedError) throw taken(record.name);
        // An address of a domain the organization verified, verified on its account: that account is the person's.
        if (error instanceof AccountConflictError && prepared.account.email?.verified)
          return answer(await adopt(caller, record, fields));
        if (error instanceof AccountConflictError) throw addressTaken();
        if (error instanceof OrganizationGone) throw problems.badAccessToken("the organization no longer exists");
        throw error;
      }
      return answer(record);
    },

    async get(caller: ScimCaller, id: string, wanted: Projection = {}) {
      return answer(await found(caller.orgId, id), wanted);
    },

    list: (caller: ScimCaller, query: ListQuery) => listed(deps.users, caller.orgId, query, view, USER_NAME),

    replace: (caller: ScimCaller, id: string, body: Record<string, unknown>, ifMatch?: string) =>
      changed(caller, id, ifMatch, () => body),

    patch: (caller: ScimCaller, id: string, operations: readonly PatchOperation[], ifMatch?: string) =>
      changed(caller, id, ifMatch, (current) => patched(current, operations)),

    /**
     * DELETE /Users/{id}: the account is locked (its tokens are refused from this moment),
     * its sessions end, it leaves the organization and its groups, and its record goes. The
     * account itself stays, locked, for its history; an operator deletes it with the users API.
     */
    async remove(caller: ScimCaller, id: string, ifMatch?: string) {
      const { orgId } = caller;
      await removeRecord(
        (known) => found(orgId, known),
        id,
        ifMatch,
        async (current) => {
          await lock(current.id);
          return leave(current);
        },
      );
      await deps.events.record(eventOf(caller, id, "scim.user-delete"));
      await deps.leaveGroups(orgId, id);
    },
  };
}
