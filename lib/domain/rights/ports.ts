import type { PendingWrite, Prefetch } from "../unit-of-work";
import type { RightDefinition } from "./catalogue";
import type { Party } from "./parties";
import type { Check, GrantRef, GrantWrite, ReadGrants } from "./plan";

export class RightDefinitionExistsError extends Error {
  constructor(readonly name: string) {
    super(`right ${name} already exists`);
    this.name = "RightDefinitionExistsError";
  }
}

/** The commit was refused: some checks failed, or a grant moved on since we read it. */
export class RightsCommitError extends Error {
  constructor(
    readonly failedChecks: Check[],
    readonly guardFailed: boolean,
  ) {
    super("rights transaction refused");
    this.name = "RightsCommitError";
  }
}

/** Stored entries of the rights catalogue; the built-in ones live in code (catalogue.ts). */
export interface RightDefinitionRepository {
  list(): Promise<RightDefinition[]>;
  get(name: string): Promise<RightDefinition | undefined>;
  /** Throws RightDefinitionExistsError when the name is taken. */
  create(definition: RightDefinition, now: number): Promise<void>;
  /** False when there was no such definition. */
  delete(name: string): Promise<boolean>;
}

export interface HeldRight {
  objectKey: string;
  right: string;
  tags: string[];
}

export interface RightHolder {
  subjectKey: string;
  right: string;
}

/** Grants of rights, kept both ways (subject and object). */
export interface RightRepository {
  /** The current state of these grants, strongly consistent. */
  readGrants(refs: GrantRef[]): Promise<ReadGrants>;
  /**
   * Checks and writes at once; throws RightsCommitError when refused. `alsoWrite`:
   * writes riding in the same commit (a user-mode call's security event).
   */
  commit(checks: Check[], writes: GrantWrite[], alsoWrite?: PendingWrite[]): Promise<void>;
  /** Rights held by a subject. */
  grantsOf(subject: Party): Promise<HeldRight[]>;
  /** Rights held on an object. */
  holdersOn(object: Party): Promise<RightHolder[]>;
  /** A party's records under `prefix` and whether the party exists, in one read. */
  itemsOfParty(party: Party, prefix: string): Promise<{ items: Record<string, unknown>[]; exists: boolean }>;
  /** Rights held by a subject, and whether it exists. */
  grantsOfParty(subject: Party): Promise<{ exists: boolean; grants: HeldRight[] }>;
  /** Rights held on an object, and whether it exists. */
  holdersOnParty(object: Party): Promise<{ exists: boolean; holders: RightHolder[] }>;
  partyExists(party: Party): Promise<boolean>;
  /** Which of these grants exist (by grantId), read inside another repository's read. */
  heldPrefetch(refs: GrantRef[]): Prefetch<Set<string>>;
  /** Whether one user holds a right on another: one strongly consistent read. */
  hasRight(subjectSub: string, objectSub: string, right: string): Promise<boolean>;
  /** Bulk load (administration and tests), no checks, replacing tags; not atomic, repeatable. */
  importGrants(grants: Array<GrantRef & { tags: string[] }>): Promise<void>;
}
