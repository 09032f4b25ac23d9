import type { StoredCode } from "../codes/one-time-code";
import type { PendingWrite, UnitOfWork } from "../unit-of-work";

/** A forgotten-password code waiting to be typed: one per account, the latest one sent. */
export interface PasswordResetRecord extends StoredCode {
  sub: string;
  /** Where the code went: the account's confirmed e-mail or phone. */
  field: "email" | "phone_number";
  createdAt: number;
}

/** Forgotten-password codes and the cap on how many an account is sent; `commit` runs them together. */
export interface PasswordResetRepository extends UnitOfWork {
  get(sub: string): Promise<PasswordResetRecord | undefined>;
  /** Counts one code sent to the account this hour; refused once `max` were sent. */
  sendCountedItem(sub: string, hour: number, max: number): PendingWrite;
  /** Stores the new code, replacing any earlier one. */
  putItem(record: PasswordResetRecord): PendingWrite;
  /** Spends one attempt of this very code; false when none was left or the code was replaced. */
  recordWrongCode(sub: string, digest: string): Promise<boolean>;
  /** Removes the code as the new password is stored: only this code, unexpired, with attempts left. */
  consumeItem(sub: string, digest: string, now: number): PendingWrite;
}

/**
 * A corpus of passwords known from breaches (Have I Been Pwned's Pwned Passwords). Resolves
 * false when the corpus could not be read: an unreachable list never blocks a password,
 * which is then judged on the other rules alone; the adapter logs why.
 */
export interface BreachedPasswordCheck {
  isBreached(password: string): Promise<boolean>;
}
