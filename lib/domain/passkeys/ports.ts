import type { Account } from "../accounts/account";
import type { PendingWrite, UnitOfWork } from "../unit-of-work";

/** A passkey (WebAuthn credential) of one account, as stored. */
export interface StoredPasskey {
  /** The credential id, base64url, as the authenticator made it. */
  id: string;
  /** COSE public key, base64url; never shown. */
  publicKey: string;
  /** The authenticator's signature counter (0 for most synced passkeys); never shown. */
  counter: number;
  transports: string[];
  /** Synced to other devices (multi-device credential), as the authenticator said. */
  backedUp: boolean;
  deviceType: "singleDevice" | "multiDevice";
  name: string;
  createdAt: number;
  lastUsed?: number;
  /** The authenticator model (AAGUID), when it told. */
  aaguid?: string;
}

/** A challenge taken once: the item that refuses its second use lives until the challenge expires. */
export interface TakenChallenge {
  nonce: string;
  expiresAt: number;
}

/** Where a passkey is stored: its account and its credential id. */
export interface PasskeyHolding {
  sub: string;
  id: string;
}

/**
 * What putting a passkey's claim found: none, so it is written; one naming `owner` (this
 * passkey's account or another); or no passkey any more (deleted meanwhile: no claim).
 */
export type ClaimOutcome = { result: "written" } | { result: "held"; owner: string } | { result: "gone" };

/**
 * How a commit ended (nothing is written unless "committed"): "claim-of-another" when the
 * only guards that refused it were credential id claims naming another account.
 */
export type PasskeyCommitOutcome = "committed" | "refused" | "claim-of-another";

/** Passkeys (docs/passkeys.md). Every change commits with its security event. */
export interface PasskeyRepository extends UnitOfWork {
  list(sub: string): Promise<StoredPasskey[]>;
  /** The account and its passkeys in one read (what creation options need); no account, undefined. */
  accountWithPasskeys(sub: string): Promise<{ account: Account; passkeys: StoredPasskey[] } | undefined>;
  /** The passkey and its account in one read (what a sign-in with it needs); either may be missing. */
  withAccount(sub: string, id: string): Promise<{ passkey?: StoredPasskey; account?: Account }>;
  /**
   * A new passkey with the claim on its credential id; refused (commit false) when any
   * account holds this id (WebAuthn L3 §7.1 step 26).
   */
  addItems(sub: string, passkey: StoredPasskey): PendingWrite[];
  /** Refused when the challenge was taken before: each is good for one ceremony. */
  takeChallengeItem(challenge: TakenChallenge): PendingWrite;
  /**
   * A use: the counter moves on only from the value read (two uses of one signature
   * cannot both pass), and the last use is noted.
   */
  usedItem(sub: string, passkey: StoredPasskey, counter: number, now: number): PendingWrite;
  /** Undefined when the account has no passkey with this id. */
  rename(sub: string, id: string, name: string): Promise<StoredPasskey | undefined>;
  /**
   * The passkey and its claim; refused when the account has no passkey with this id, and
   * when the claim names another account. `keepClaim`: the passkey alone (that other account's
   * claim stays).
   */
  removeItems(sub: string, id: string, options?: { keepClaim?: boolean }): PendingWrite[];
  /** Commits like `commit`, and tells a refusal by another account's claim from the others. */
  commitTelling(writes: PendingWrite[]): Promise<PasskeyCommitOutcome>;
  /**
   * Every stored passkey, a page at a time: a Scan of the whole table, for the one-off
   * claim backfill (`svc-admin passkeys claim`), never for a request.
   */
  holdingPages(): AsyncIterable<PasskeyHolding[]>;
  /** The claim on `id` for `sub`'s passkey, put only while that passkey exists and no claim does. */
  claim(sub: string, id: string): Promise<ClaimOutcome>;
}
