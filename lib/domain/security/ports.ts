import type { StoredCode } from "../codes/one-time-code";
import type { PendingWrite } from "../unit-of-work";
export interface StoredGenerator {
  id: string;
  name: string;
  len: number;
  /** Sealed (lib/crypto/sealed-box); opened only to check a code. */
  secret: string;
  lastStep?: number;
}

/** TOTP generators and secrets waiting for enrolment (interface §4.15). */
export interface TotpRepository {
  /** Keeps an issued secret, sealed, until `expiresAt`. */
  putPending(sub: string, digest: string, sealedSecret: string, expiresAt: number): Promise<void>;
  pending(sub: string, digest: string, now: number): Promise<string | undefined>;
  /** The pending secret becomes a generator, once; false when the secret was taken meanwhile. */
  enrol(sub: string, digest: string, generator: StoredGenerator, now: number): Promise<boolean>;
  list(sub: string): Promise<StoredGenerator[]>;
  /** Records a used time step; false when that step or a later one was used already (replay). */
  useStep(sub: string, id: string, step: number): Promise<boolean>;
  remove(sub: string, id: string): Promise<boolean>;
}

/** An account's set of recovery codes: SHA-256 digests only, each removed as it is used. */
export interface RecoveryCodeSet {
  remaining: number;
  createdAt: number;
}

/** Recovery codes (interface §4.15a); events go in the same commit as the change they record. */
export interface RecoveryCodeRepository {
  /** Whether the account exists, and its set's size and age when one was generated. */
  status(sub: string): Promise<{ account: boolean; set?: RecoveryCodeSet }>;
  /** Replaces the whole set and records `event` at once; false when the account does not exist. */
  replace(sub: string, digests: string[], createdAt: number, event: PendingWrite): Promise<boolean>;
  /** Takes one code out of the set with `event`; false when it is not (or no longer) in it. */
  use(sub: string, digest: string, event: PendingWrite): Promise<boolean>;
}

/** The one-time code sent for a sign-in (e-mail or SMS second factor): the latest one per account. */
export interface LoginCodeRecord extends StoredCode {
  channel: "email" | "sms";
}

export interface LoginCodeRepository {
  get(sub: string): Promise<LoginCodeRecord | undefined>;
  /** Stores the new code, replacing any earlier one. */
  put(sub: string, record: LoginCodeRecord): Promise<void>;
  /** Spends one attempt of this very code; false when none was left or the code was replaced. */
  recordWrongCode(sub: string, digest: string): Promise<boolean>;
  /** Removes this very code, unexpired, with attempts left; false when another use got there first. */
  consume(sub: string, digest: string, now: number): Promise<boolean>;
}
