import { ORGANIZATION_PROFILE } from "../groups/group";
import { appliesTo, builtinRight } from "./catalogue";
import { isBuiltInParty, type Party, type PartyKind, partyKey } from "./parties";
import { rightProblems } from "./problems";

/**
 * How a batch of right changes becomes one transaction (interface §4.3). Pure: the store
 * reads and writes, this decides. A grant is one (subject, object, right) with a set of
 * tags; it exists while a tag remains (interface §2.4).
 */

export interface GrantRef {
  subject: Party;
  object: Party;
  right: string;
}

/** Tags to add and to remove on one grant; removal applies first (rights/change). */
export interface RightChange extends GrantRef {
  add: string[];
  remove: string[];
  /** Remove every tag, whatever they are (v3 DELETE without tags). */
  removeAll?: boolean;
}

/** A grant as stored: its tags and a revision that every write bumps. */
export interface GrantState {
  tags: string[];
  rev: number;
}

export type GrantWrite =
  /** Tags only added: no read needed, DynamoDB adds them to the set. */
  | (GrantRef & { op: "add"; tags: string[] })
  /** The whole tag set, written only if the grant is still at the revision we read. */
  | (GrantRef & { op: "put"; tags: string[]; expectedRev?: number })
  | (GrantRef & { op: "delete"; expectedRev: number });

export type Check =
  | { kind: "party"; party: Party }
  /** A stored catalogue entry must exist and apply to these kinds (none: existence only). */
  | { kind: "right"; right: string; subjectTypes: PartyKind[]; objectTypes: PartyKind[] };

export interface Plan {
  checks: Check[];
  writes: GrantWrite[];
  /** The tags of every grant after the change ([] = gone), when they are known. */
  outcome: Array<GrantRef & { tags: string[] }>;
}

/** One DynamoDB transaction holds at most 100 items. */
export const MAX_TRANSACTION_ITEMS = 100;

export function grantId(ref: GrantRef): string {
  return `${partyKey(ref.subject)}\n${partyKey(ref.object)}\n${ref.right}`;
}

/** Joins changes of the same grant, so a transaction never touches one item twice. */
export function mergeChanges(changes: RightChange[]): RightChange[] {
  const merged = new Map<string, RightChange>();
  for (const change of changes) {
    const id = grantId(change);
    const earlier = merged.get(id);
    if (!earlier) merged.set(id, { ...change, add: [...new Set(change.add)], remove: [...new Set(change.remove)] });
    else {
      earlier.add = [...new Set([...earlier.add, ...change.add])];
      earlier.remove = [...new Set([...earlier.remove, ...change.remove])];
      earlier.removeAll = earlier.removeAll || change.removeAll;
    }
  }
  return [...merged.values()];
}

/**
 * Built-in rights are checked here, with no storage call; a stored definition is
 * checked inside the transaction, so one deleted meanwhile cannot be assigned.
 */
export function builtinKindProblem(change: RightChange): Error | undefined {
  const builtin = builtinRight(change.right);
  if (!builtin || change.add.length === 0) return undefined;
  if (appliesTo(builtin, change.subject.kind, change.object.kind)) return undefined;
  return rightProblems.rightNotApplicable(builtin, change.subject.kind, change.object.kind);
}

/** The most items a batch can need, known before any read. */
export function worstCaseItems(changes: RightChange[]): number {
  const parties = new Set(changes.flatMap((c) => [partyKey(c.subject), partyKey(c.object)]));
  const custom = new Set(changes.filter((c) => !builtinRight(c.right)).map((c) => c.right));
  // A role (a user's right over an organization) also moves its member's revision: one item per pair.
  const members = new Set(
    changes
      .filter((c) => c.subject.kind === "user" && c.object.kind === "grps" && c.object.profile === ORGANIZATION_PROFILE)
      .map((c) => `${partyKey(c.subject)}\n${partyKey(c.object)}`),
  );
  return parties.size + custom.size + 2 * changes.length + members.size;
}

/** Whether applying the change needs the grant's current tags. */
export function removes(change: RightChange): boolean {
  return change.remove.length > 0 || Boolean(change.removeAll);
}

function sameTags(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((t) => b.includes(t));
}

function catalogueChecks(changes: RightChange[], read: ReadGrants): Check[] {
  const byRight = new Map<string, { subjectTypes: Set<PartyKind>; objectTypes: Set<PartyKind> }>();
  for (const change of changes) {
    if (builtinRight(change.right)) continue;
    const adds = change.add.length > 0;
    // Revoking a grant that exists needs no catalogue: a definition deleted since must
    // not strand its grants. Revoking nothing must still name a known right.
    if (!adds && read.get(grantId(change))) continue;
    const entry = byRight.get(change.right) ?? { subjectTypes: new Set(), objectTypes: new Set() };
    if (adds) {
      entry.subjectTypes.add(change.subject.kind);
      entry.objectTypes.add(change.object.kind);
    }
    byRight.set(change.right, entry);
  }
  return [...byRight].map(([right, kinds]) => ({
    kind: "right",
    right,
    subjectTypes: [...kinds.subjectTypes],
    objectTypes: [...kinds.objectTypes],
  }));
}

function partyChecks(changes: RightChange[]): Check[] {
  const parties = new Map<string, Party>();
  for (const change of changes) {
    parties.set(partyKey(change.subject), change.subject);
    parties.set(partyKey(change.object), change.object);
  }
  return [...parties.values()].filter((party) => !isBuiltInParty(party)).map((party) => ({ kind: "party", party }));
}

/**
 * `read` holds the grants that were read: a state, or null when there is no such grant.
 * A change whose grant was not read may only add tags.
 */
export type ReadGrants = Map<string, GrantState | null>;

export function planChanges(changes: RightChange[], read: ReadGrants): Plan {
  const writes: GrantWrite[] = [];
  const outcome: Plan["outcome"] = [];
  for (const change of changes) {
    const ref: GrantRef = { subject: change.subject, object: change.object, right: change.right };
    const id = grantId(change);
    if (!read.has(id)) {
      if (removes(change)) throw new Error(`grant ${id} must be read before tags are removed`);
      writes.push({ ...ref, op: "add", tags: change.add });
      continue;
    }
    const before = read.get(id) ?? undefined;
    const kept = change.removeAll ? [] : (before?.tags ?? []).filter((t) => !change.remove.includes(t));
    const after = [...new Set([...kept, ...change.add])].sort();
    outcome.push({ ...ref, tags: after });
    if (after.length === 0) {
      if (before) writes.push({ ...ref, op: "delete", expectedRev: before.rev });
    } else if (!before || !sameTags(before.tags, after)) {
      writes.push({ ...ref, op: "put", tags: after, expectedRev: before?.rev });
    }
  }
  return { checks: [...partyChecks(changes), ...catalogueChecks(changes, read)], writes, outcome };
}
