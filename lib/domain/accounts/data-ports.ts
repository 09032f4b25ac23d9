import type { SecurityEvent } from "../audit/security-event";
import type { DeviceRecord } from "../devices/device";
import type { FederatedLink } from "../federation/records";
import type { StoredPasskey } from "../passkeys/ports";
import type { Consent, SessionRecord } from "../sessions/ports";
import type { PendingWrite } from "../unit-of-work";
import type { Account } from "./account";
import type { Properties } from "./properties";

/**
 * An account's whole item collection, as its owner may see it (the account console's "Your
 * data") and as its deletion removes it. Secrets are read as the store keeps them where a
 * record type carries them (a session's digests); the domain picks what leaves.
 */
export interface AccountData {
  account: Account;
  props: Properties;
  devices: DeviceRecord[];
  sessions: SessionRecord[];
  consents: Consent[];
  links: Array<FederatedLink & { linkedAt?: number }>;
  passkeys: StoredPasskey[];
  /** The authenticator apps: never their secrets. */
  totps: Array<{ id: string; name: string; digits: number }>;
  recoveryCodes?: { remaining: number; createdAt: number };
  securityQuestion?: { question: string };
  groups: Array<{ profile: string; id: string; addedAt: number }>;
  /** Rights the account holds, on the object the interface names (`its|app`, `grps|id|profile`, a sub). */
  rightsHeld: Array<{ object: string; right: string; tags: string[] }>;
  /** Rights others hold over the account. */
  rightsOver: Array<{ subject: string; right: string }>;
  /** Newest first. */
  events: SecurityEvent[];
}

/** What deleting an account found: done, nothing there, or not (or no longer) due. */
export type DeletionOutcome = "deleted" | "gone" | "not_due";

export interface AccountDataRepository {
  /** Every item of the account's partition, strongly consistent; undefined without a profile. */
  read(sub: string): Promise<AccountData | undefined>;
  /**
   * Locks the account and marks it for deletion at `at` (the daily job finds it by then),
   * with `also` in the same write. False when there is no such account.
   */
  scheduleDeletion(sub: string, at: number, now: number, also: PendingWrite[]): Promise<boolean>;
  /**
   * Deletes an account marked for deletion by `now` and still locked: its partition's items,
   * its uniqueness claims (e-mail, phone, linked external accounts, passkeys), its name index
   * items and the mirrors of its memberships and rights; the profile goes last, with `also`.
   * Interrupted, the account stays locked and marked, and a repeat finishes the job.
   */
  deleteAccount(sub: string, now: number, also: (account: Account) => PendingWrite[]): Promise<DeletionOutcome>;
  /**
   * Takes the mark off an account an operator unlocked while it waited (the deletion is
   * cancelled): it counts as active from `now`. False when it is locked or not marked.
   */
  clearDeletion(sub: string, now: number): Promise<boolean>;
  /** Accounts marked for deletion by `now`, oldest first, at most `limit` (from the index, eventually consistent). */
  dueDeletions(now: number, limit: number): Promise<string[]>;
}
