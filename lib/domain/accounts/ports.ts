import type { PasswordHash } from "../credentials/password-hash";
import type { PendingWrite } from "../unit-of-work";
import type { Account, AccountState, StoredContact } from "./account";

/** What the domain needs from account storage, and what storage may answer it. */

/** Values one account alone may hold; a passkey's is its credential id. */
export type UniqueField = "sub" | "email" | "phone_number" | "passkey";
export type ContactField = "email" | "phone_number";

/** The account cannot be written because these values belong to another account. */
export class AccountConflictError extends Error {
  constructor(readonly fields: UniqueField[]) {
    super(`already used: ${fields.join(", ")}`);
    this.name = "AccountConflictError";
  }
}

export class AccountNotFoundError extends Error {
  constructor(readonly sub: string) {
    super("account not found");
    this.name = "AccountNotFoundError";
  }
}

/** Someone else changed the account between our read and our write; the caller may retry. */
export class AccountChangedError extends Error {
  constructor() {
    super("account changed concurrently");
    this.name = "AccountChangedError";
  }
}

/** The account is one an organization provisions (SCIM): only that provisioning changes what it owns. */
export class AccountProvisionedError extends Error {
  constructor(readonly orgId: string) {
    super("account provisioned by an organization");
    this.name = "AccountProvisionedError";
  }
}

export interface AccountChange {
  /** The organization's SCIM provisioning itself: what it owns is open to it. */
  byProvisioning?: true;
  /**
   * For a new waiting contact change: the state of the change it replaces (null: none), so
   * attempts carried over from it cannot be carried twice by concurrent requests.
   */
  replacesPending?: Partial<Record<ContactField, string | null>>;
  set: Partial<
    Pick<Account, "family_name" | "given_name" | "middle_name" | "locked" | "pending_phone_number" | "pending_email">
  >;
  remove: Array<"family_name" | "given_name" | "middle_name">;
  /** New contact values; `null` removes the contact. Needs the current account. */
  contacts?: { phone_number?: StoredContact | null; email?: StoredContact | null };
}

export interface AccountRepository {
  /** Marks a contact verified, provided it still holds the value that was confirmed. */
  verifyContactItem(sub: string, field: ContactField, value: string): PendingWrite;
  /** Which account holds a contact value. */
  claimOwner(field: ContactField, value: string): Promise<string | undefined>;
  /**
   * For a commit: an existing account becomes one the organization provisions (SCIM),
   * provided its verified e-mail address is still `email` and no organization provisions it.
   */
  provisionItem(sub: string, orgId: string, email: string): PendingWrite;
  /** Counts one wrong contact-change code; the attempts left, or undefined when none were. */
  recordWrongContactCode(sub: string, field: ContactField, state: string): Promise<number | undefined>;
  /**
   * Applies a confirmed contact change: the contact takes the new value, verified, the
   * pending change goes and the value's uniqueness moves, all at once, guarded by the
   * very code that was checked and by the contact we read. Throws AccountChangedError
   * or AccountConflictError.
   */
  applyContactChange(account: Account, field: ContactField, now: number): Promise<Account>;
  /** One strongly consistent read of the profile. */
  get(sub: string): Promise<Account | undefined>;
  /** The account, its unique values and its credential at once: all or none (AccountConflictError). */
  create(account: Account, passwordHash?: PasswordHash): Promise<void>;
  /**
   * A creation with the flow's own writes in the same commit; a conflict on the account
   * is an AccountConflictError, a refused `extra` write `onExtraFailed` (by position).
   */
  createWith(
    account: Account,
    passwordHash: PasswordHash | undefined,
    extra: PendingWrite[],
    onExtraFailed: (extraIndexes: number[]) => Error,
  ): Promise<void>;
  /**
   * Changes attributes, guarded by the values read (`current`, else read here), so a
   * concurrent change cannot orphan a unique value. Throws AccountNotFoundError,
   * AccountChangedError or AccountConflictError.
   */
  update(sub: string, change: AccountChange, current?: Account): Promise<Account>;
}

/** Caps on contact-change codes: no flooding a phone or mailbox, no SMS pumping. */
export interface ContactCodeCaps {
  perAccountPerHour: number;
  perAddressPerHour: number;
  /** Seconds between two codes to one address. */
  coolDownSeconds: number;
}

export interface ContactCodeLimits {
  /**
   * Counts one code to `value` for the account, by account and by address at once;
   * false, counting nothing, when a cap or the address's cool-down refuses it.
   */
  takeSend(sub: string, field: ContactField, value: string, now: number, caps: ContactCodeCaps): Promise<boolean>;
}

/** The lookups user search is made of; none scans. */
export interface AccountSearch {
  /** The owner of a contact value (already in normal form). */
  ownerOfContact(field: ContactField, normalized: string): Promise<string | undefined>;
  /** Accounts under one folded name value, at most `cap` (complete: false when there are more). */
  subsWithName(attribute: string, folded: string, cap: number): Promise<{ subs: string[]; complete: boolean }>;
  /** The accounts of these subs that exist, strongly consistent. */
  accounts(subs: string[]): Promise<Account[]>;
}

/** Authentication modes (interface §4.12) and account state (interface §3.1). */
export interface AccountSecurityRepository {
  /** Whether the account has an authenticator of its own: a TOTP generator or a passkey. */
  hasSecondFactor(sub: string): Promise<boolean>;
  /** Sets and removes mode attributes; undefined when the account does not exist. */
  setModes(
    sub: string,
    set: Partial<Pick<Account, "requiredFactor" | "needPasswordChange" | "methodsLocked">>,
    remove: Array<"requiredFactor" | "needPasswordChange">,
  ): Promise<Account | undefined>;
  /**
   * Sets the state. An untouchable account without an end stops being an inactivity
   * candidate; with one, it becomes a candidate again from `candidateFrom` on.
   */
  setState(sub: string, state: AccountState, candidateFrom: number | undefined): Promise<boolean>;
  /** Accounts inactive since before `cutoff`, from one shard of candidates (no full scan). */
  inactiveCandidates(shard: number, cutoff: number): Promise<Array<{ sub: string; since: string }>>;
  /** Locks one candidate, if still the activity we saw and not (any longer) untouchable. */
  lockForInactivity(sub: string, seenSince: string, now: number): Promise<boolean>;
}
