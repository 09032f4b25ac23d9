import type { SecurityEventLog } from "../audit/ports";
import type { SecurityEvent } from "../audit/security-event";
import type { PendingWrite } from "../unit-of-work";
import { appliesTo } from "./catalogue";
import {
  createRightDefinition,
  deleteRightDefinition,
  listRightDefinitions,
  type NewRightBody,
  readRightDefinition,
} from "./catalogue-admin";
import { isBuiltInParty, type Party } from "./parties";
import {
  builtinKindProblem,
  type Check,
  MAX_TRANSACTION_ITEMS,
  mergeChanges,
  type Plan,
  planChanges,
  type RightChange,
  removes,
  worstCaseItems,
} from "./plan";
import { type RightDefinitionRepository, type RightRepository, RightsCommitError } from "./ports";
import { rightProblems } from "./problems";
import { type V2RightsBody, type V3RightsBody, v2Changes, v3Changes } from "./requests";

export interface RightsDeps {
  rights: RightRepository;
  rightDefinitions: RightDefinitionRepository;
}

/** A grant moved on between our read and our write this many times: give up (409). */
const ATTEMPTS = 5;

async function problemOf(deps: RightsDeps, check: Check, changes: RightChange[]): Promise<Error> {
  if (check.kind === "party") return rightProblems.unknownParty(check.party);
  // Failure path only: one read tells a missing definition from one of other kinds.
  const definition = await deps.rightDefinitions.get(check.right);
  if (!definition) return rightProblems.unknownRight(check.right);
  const misfit = changes.find(
    (c) => c.right === check.right && c.add.length > 0 && !appliesTo(definition, c.subject.kind, c.object.kind),
  );
  return misfit
    ? rightProblems.rightNotApplicable(definition, misfit.subject.kind, misfit.object.kind)
    : rightProblems.changedConcurrently();
}

/**
 * Applies assignments and revocations together, in one transaction: every party and
 * custom right is checked in it, so nothing is written for a request that names
 * something unknown. Adding tags costs one round trip; removing tags reads the grants
 * first (two), and the writes are guarded by the revision read, so a concurrent change
 * makes us read again rather than lose a tag or keep an empty grant.
 *
 * `readAll` reads every grant, so the outcome (tags after the change) is known for all.
 */
export async function changeRights(
  deps: RightsDeps,
  changes: RightChange[],
  /** `alsoWrite`: items for the same transaction, e.g. a user-mode call's security event. */
  options: { readAll: boolean; alsoWrite?: PendingWrite[] },
): Promise<Plan["outcome"]> {
  const alsoWrite = options.alsoWrite ?? [];
  const merged = mergeChanges(changes);
  // rights/change with both lists empty: nothing to check or write but the extra items
  // (DynamoDB refuses an empty transaction).
  if (merged.length === 0) {
    if (alsoWrite.length > 0) await deps.rights.commit([], [], alsoWrite);
    return [];
  }
  for (const change of merged) {
    const problem = builtinKindProblem(change);
    if (problem) throw problem;
  }
  const items = worstCaseItems(merged) + alsoWrite.length;
  if (items > MAX_TRANSACTION_ITEMS) throw rightProblems.tooManyChanges(items, MAX_TRANSACTION_ITEMS);
  const toRead = merged.filter((c) => options.readAll || removes(c));
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const read = toRead.length > 0 ? await deps.rights.readGrants(toRead) : new Map();
    const plan = planChanges(merged, read);
    try {
      await deps.rights.commit(plan.checks, plan.writes, alsoWrite);
      return plan.outcome;
    } catch (error) {
      if (!(error instanceof RightsCommitError)) throw error;
      if (error.failedChecks.length > 0) throw await problemOf(deps, error.failedChecks[0], merged);
    }
  }
  throw rightProblems.changedConcurrently();
}

/** interface §4.3 rights of a subject: object key -> right -> tags. */
export async function rightsOf(deps: RightsDeps, subject: Party): Promise<Record<string, Record<string, string[]>>> {
  const { grants, exists } = await deps.rights.grantsOfParty(subject);
  if (!exists && !isBuiltInParty(subject)) throw rightProblems.unknownParty(subject);
  const out: Record<string, Record<string, string[]>> = {};
  for (const grant of grants) {
    out[grant.objectKey] ??= {};
    out[grant.objectKey][grant.right] = grant.tags;
  }
  return out;
}

/** interface §4.3 rights on an object: subject key -> right names. */
export async function rightsOn(deps: RightsDeps, object: Party): Promise<Record<string, string[]>> {
  const { holders, exists } = await deps.rights.holdersOnParty(object);
  if (!exists && !isBuiltInParty(object)) throw rightProblems.unknownParty(object);
  const out: Record<string, string[]> = {};
  for (const holder of holders) {
    out[holder.subjectKey] ??= [];
    out[holder.subjectKey].push(holder.right);
  }
  return out;
}

export interface RightUseCaseDeps extends RightsDeps {
  events: Pick<SecurityEventLog, "putItem">;
}

export type RightUseCases = ReturnType<typeof rightUseCases>;

/** The rights calls (interface §4.3) and the rights catalogue (interface §4.16). */
export function rightUseCases(deps: RightUseCaseDeps) {
  return {
    rightsOf: (subject: Party) => rightsOf(deps, subject),
    rightsOn: (object: Party) => rightsOn(deps, object),

    /** v3 assignment: adding tags needs no read of the grants. */
    async assign(body: V3RightsBody): Promise<void> {
      await changeRights(deps, v3Changes(body, "assign"), { readAll: false });
    },

    async revoke(body: V3RightsBody): Promise<void> {
      await changeRights(deps, v3Changes(body, "revoke"), { readAll: false });
    },

    /**
     * v2 rights/change: both lists in one transaction, with the user-mode call's security
     * event; answers every right touched with its tags afterwards.
     */
    change(body: V2RightsBody, caller: { mode: "user" | "system"; sub?: string }, event: SecurityEvent | undefined) {
      return changeRights(deps, v2Changes(body, caller), {
        readAll: true,
        alsoWrite: event ? [deps.events.putItem(event)] : [],
      });
    },

    listDefinitions: () => listRightDefinitions(deps.rightDefinitions),
    readDefinition: (name: string) => readRightDefinition(deps.rightDefinitions, name),
    createDefinition: (body: NewRightBody) => createRightDefinition(deps.rightDefinitions, body),
    deleteDefinition: (name: string) => deleteRightDefinition(deps.rightDefinitions, name),
  };
}
