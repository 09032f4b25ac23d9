import type { Account } from "../accounts/account";
import type { PasswordHash, StoredPasswordHash } from "../credentials/password-hash";
import type { PendingWrite, Prefetch, UnitOfWork } from "../unit-of-work";
import type { AttemptClaim, FailureCounters, LIMITS } from "./brute-force";

/** What a password change without a guess acts on: the account and its credential. */
export interface AccountSnapshot {
  account?: Account;
  credential?: StoredPasswordHash & { changedAt?: number; history?: StoredPasswordHash[] };
  /** Whether `leadRight.lead` holds `leadRight.right` over the account, when asked. */
  leadHoldsRight?: boolean;
}

/** Everything a password guess (a login, a current password) needs to decide, read at once. */
export interface LoginSnapshot extends AccountSnapshot {
  counters: FailureCounters;
  /** Owners of the e-mail or phone, when the username named one. */
  ownerByEmail?: string;
  ownerByPhone?: string;
}

/** A lead acting on an account (interface §4.2): its right is read in the same call. */
export interface LeadRight {
  lead: string;
  right: string;
}

/** An attempt taken before a password was judged: what settling or giving it back needs. */
export interface TakenAttempt {
  id: string;
  counted: AttemptClaim["counted"];
  addresses: string[];
  hour: number;
  /** The consecutive count it makes as a failure. */
  consecutive: number;
  /** Whether it put up the pending wait, which its judgement must set right. */
  guarded: boolean;
}

export interface LoginCandidate {
  sub?: string;
  email?: string;
  phone?: string;
  /**
   * The login name in one form for all its spellings: when it names no account, the
   * counters read are this name's, as the attempt counts them.
   */
  name?: string;
}

/** Credentials, failure counters and the writes of a sign-in; `commit` runs them together. */
export interface LoginRepository extends UnitOfWork {
  /**
   * One round trip: the account the username names directly (as sub), its credential
   * and counters, the owners of an e-mail or phone username, the address's counter.
   */
  snapshot(candidate: LoginCandidate, addresses: string[], hour: number): Promise<LoginSnapshot>;
  /** The snapshot as a read that rides in another step's read. */
  snapshotPrefetch(candidate: LoginCandidate, addresses: string[], hour: number): Prefetch<LoginSnapshot>;
  /** A change that judges no password guess reads no failure counters: the account, its credential, the lead's right. */
  accountSnapshot(sub: string, leadRight?: LeadRight): Promise<AccountSnapshot>;
  accountSnapshotPrefetch(sub: string, leadRight?: LeadRight): Prefetch<AccountSnapshot>;
  /**
   * Takes one attempt under every limit at once (atomic, conditional), before the password
   * is judged; undefined when a limit refuses it.
   */
  takeAttempt(claim: AttemptClaim, limits: typeof LIMITS): Promise<TakenAttempt | undefined>;
  /** The attempt was a failure: it stays counted, and its wait (0: none) replaces the pending one. */
  settleFailure(attempt: TakenAttempt, waitUntil: number): Promise<void>;
  /** The password was right: the hour's and the addresses' counts go back; `forget` also clears the consecutive ones. */
  giveBack(attempt: TakenAttempt, forget: boolean): Promise<void>;
  /** The same give-back (with the consecutive ones forgotten), for a login's commit. */
  giveBackItems(attempt: TakenAttempt): PendingWrite[];
  /** A successful login forgets the consecutive failures. */
  clearFailuresItem(sub: string): PendingWrite;
  /** Records a successful login on the profile: state active, last login time. */
  loginRecordedItem(sub: string, now: number, clearForcedChange: boolean): PendingWrite;
  /** Records the login time of an untouchable account without touching its state. */
  touchItem(sub: string, now: number, clearForcedChange: boolean): PendingWrite;
  /** A changed password clears a forced change and stamps the profile (which must exist). */
  passwordChangedItem(sub: string, now: number): PendingWrite;
  /** A new password (with its history). */
  credentialItem(sub: string, hash: PasswordHash, changedAt: number, history: StoredPasswordHash[]): PendingWrite;
  /**
   * The sign-in's new hash of the same password (another algorithm or weaker parameters
   * before), written only while the stored hash is still `replaces`; date and history stay.
   */
  rehashItem(sub: string, hash: PasswordHash, replaces: StoredPasswordHash): PendingWrite;
}

/** A QR-code login between its start by an application and the tokens it yields. */
export interface QrLoginRecord {
  code: string;
  /** The application that started it and alone may redeem it. */
  clientId: string;
  scopes: string[];
  status: "pending" | "confirmed" | "refused" | "used";
  /** The user who confirmed it. */
  sub?: string;
  /** Where the start came from, shown to the user who decides. */
  ip?: string;
  userAgent?: string;
  /**
   * The hosted pages': a digest of the CSRF cookie of the browser that showed the code, the
   * one browser it may sign in (another that posts the code gets no session).
   */
  browserBinding?: string;
  createdAt: number;
  /** It ends then; checked on every read and write. */
  expiresAt: number;
}

export interface QrLoginRepository {
  create(record: QrLoginRecord): Promise<void>;
  get(code: string, now: number): Promise<QrLoginRecord | undefined>;
  /** Confirms (for `sub`) or refuses a pending code; false when it was not pending and alive. */
  decide(code: string, decision: "confirmed" | "refused", sub: string, now: number): Promise<boolean>;
  /** Marks a confirmed code used, in the commit that signs the user in. */
  redeemItem(code: string, clientId: string, now: number): PendingWrite;
}
