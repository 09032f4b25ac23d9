import { randomUUID } from "node:crypto";
import { DISPLAY_NAME, groupAttributes, groupView, memberIds } from "./group-resource";
import type { PatchOperation } from "./patch";
import { type ScimRecord, ScimRecordRefusedError, type ScimRecords } from "./ports";
import { scimProblems } from "./problems";
import {
  ATTEMPTS,
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
  SCAN_LIMIT,
  type ScimCaller,
} from "./resources";

/**
 * SCIM 2.0 groups of one organization (RFC 7644, docs/scim.md): a name unique in the
 * organization and its members, each a user the same provider provisioned here. Every
 * change is conditioned on the version read, so concurrent member changes never lose one.
 */

export interface ScimGroupDeps {
  groups: ScimRecords;
  users: Pick<ScimRecords, "existing">;
  baseUrl: string;
}

const taken = (name: string) => scimProblems.uniqueness(`a group named ${name} is already provisioned`);

export type ScimGroupUseCases = ReturnType<typeof scimGroupUseCases>;

export function scimGroupUseCases(deps: ScimGroupDeps) {
  const view = (record: ScimRecord) => groupView(record, deps.baseUrl);
  const answer = (record: ScimRecord, wanted: Projection = {}) =>
    answerOf(record, "Group", deps.baseUrl, projected(view(record), wanted));

  /** Members must be users provisioned here: another organization's users, or none, are refused. */
  async function checkMembers(orgId: string, ids: string[]) {
    if (ids.length === 0) return;
    const known = await deps.users.existing(orgId, ids);
    const unknown = ids.filter((id) => !known.has(id));
    if (unknown.length > 0)
      throw scimProblems.invalidValue(`members that are not provisioned users: ${unknown.slice(0, 10).join(", ")}`);
  }

  async function found(orgId: string, id: string): Promise<ScimRecord> {
    const record = await deps.groups.get(orgId, id);
    if (!record) throw scimProblems.groupNotFound(id);
    return record;
  }

  const rules = (orgId: string): ChangeRules => ({
    read: (id) => found(orgId, id),
    kept: groupAttributes,
    nameAttribute: DISPLAY_NAME,
    before: (current, updated) => {
      const before = new Set(memberIds(current.attributes));
      return checkMembers(
        orgId,
        memberIds(updated.attributes).filter((member) => !before.has(member)),
      );
    },
    write: deps.groups.replace,
    taken,
  });

  return {
    async create({ orgId }: ScimCaller, body: Record<string, unknown>) {
      const attributes = groupAttributes(body);
      await checkMembers(orgId, memberIds(attributes));
      const now = Date.now();
      const record: ScimRecord = {
        orgId,
        id: randomUUID(),
        name: nameOf(attributes, DISPLAY_NAME),
        attributes,
        version: 1,
        created: now,
        lastModified: now,
      };
      try {
        await deps.groups.create(record);
      } catch (error) {
        if (error instanceof ScimRecordRefusedError) throw taken(record.name);
        throw error;
      }
      return answer(record);
    },

    async get({ orgId }: ScimCaller, id: string, wanted: Projection = {}) {
      return answer(await found(orgId, id), wanted);
    },

    list: ({ orgId }: ScimCaller, query: ListQuery) => listed(deps.groups, orgId, query, view, DISPLAY_NAME),

    replace: async ({ orgId }: ScimCaller, id: string, body: Record<string, unknown>, ifMatch?: string) =>
      answer(await changeRecord(rules(orgId), id, ifMatch, () => body)),

    patch: async ({ orgId }: ScimCaller, id: string, operations: readonly PatchOperation[], ifMatch?: string) =>
      answer(await changeRecord(rules(orgId), id, ifMatch, (current) => patched(current, operations))),

    remove: ({ orgId }: ScimCaller, id: string, ifMatch?: string) =>
      removeRecord(
        (known) => found(orgId, known),
        id,
        ifMatch,
        async (current) => {
          try {
            await deps.groups.remove(current);
            return true;
          } catch (error) {
            if (error instanceof ScimRecordRefusedError) return false;
            throw error;
          }
        },
      ),

    /**
     * A deprovisioned user leaves every group it was in: the organization's groups are read
     * page by page (at most SCAN_LIMIT) and each that lists it is written without it.
     */
    async leaveGroups(orgId: string, userId: string) {
      let after: string | undefined;
      let read = 0;
      do {
        const page = await deps.groups.page(orgId, 1000, after);
        read += page.records.length;
        for (const group of page.records) {
          if (memberIds(group.attributes).includes(userId)) await withoutMember(group, userId);
        }
        after = read < SCAN_LIMIT ? page.next : undefined;
      } while (after);
    },
  };

  async function withoutMember(group: ScimRecord, userId: string) {
    for (let current: ScimRecord | undefined = group, attempt = 1; current; attempt++) {
      const members = (current.attributes.members as Array<{ value: string }>).filter((m) => m.value !== userId);
      const { members: _all, ...rest } = current.attributes;
      const attributes = members.length > 0 ? { ...rest, members } : rest;
      try {
        await deps.groups.replace(current, {
          ...current,
          attributes,
          version: current.version + 1,
          lastModified: Date.now(),
        });
        return;
      } catch (error) {
        if (!(error instanceof ScimRecordRefusedError) || attempt >= ATTEMPTS) throw error;
        current = await deps.groups.get(group.orgId, group.id);
        if (current && !memberIds(current.attributes).includes(userId)) return;
      }
    }
  }
}
