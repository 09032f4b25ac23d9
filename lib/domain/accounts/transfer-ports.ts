import type { StoredPasswordHash } from "../credentials/password-hash";
import type { StoredPasskey } from "../passkeys/ports";
import type { StoredGenerator } from "../security/ports";
import type { Account } from "./account";

/**
 * An account with everything the export carries (docs/administration.md, users export):
 * what a wiped table needs to hold the same account again.
 */
export interface AccountRecord {
  /** Without waiting contact changes: their codes were sent to the old table's users. */
  account: Account;
  credential?: { hash: StoredPasswordHash; changedAt?: number; history?: StoredPasswordHash[] };
  groups: Array<{ profile: string; id: string; addedAt: number }>;
  /** Rights the account holds: the object as the interface names it (`its|app`, `grps|id|profile`, a sub). */
  rights: Array<{ object: string; right: string; tags: string[] }>;
  /** Sealed as stored (lib/crypto/sealed-box), under the source's data key. */
  totps: StoredGenerator[];
  passkeys: StoredPasskey[];
}

export interface AccountPageOptions {
  /** Parallel Scan segments. */
  segments: number;
  /** Read TOTP generators and passkeys too. */
  factors: boolean;
}

/** Reads and writes whole accounts, for export and import. */
export interface AccountTransferRepository {
  /** Every account, a page at a time (never the whole table in memory); order is the table's. */
  pages(options: AccountPageOptions): AsyncIterable<AccountRecord[]>;
  /** One account, strongly consistent; undefined when there is none. */
  read(sub: string, factors: boolean): Promise<AccountRecord | undefined>;
  /**
   * Writes the account and every item it carries in one transaction, or nothing:
   * AccountConflictError when the sub, e-mail or phone is taken (by any account),
   * AccountTooLargeError when it does not fit one transaction.
   */
  write(record: AccountRecord): Promise<void>;
}

export class AccountTooLargeError extends Error {
  constructor(readonly items: number) {
    super(`the account has ${items} items, more than one transaction writes (100)`);
    this.name = "AccountTooLargeError";
  }
}
