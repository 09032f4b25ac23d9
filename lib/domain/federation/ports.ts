import type { PendingWrite } from "../unit-of-work";
import type { BindState, FederatedLink, SealedTokens, StoredTokens } from "./records";

/** The external account is already linked to another local account. */
export class FederatedAccountTakenError extends Error {
  constructor() {
    super("external account linked to another account");
    this.name = "FederatedAccountTakenError";
  }
}

export interface NewLink extends FederatedLink {
  sub: string;
  /** Given: the provider's tokens are kept with the link, written together. */
  tokens?: SealedTokens;
}

type TokensRef = Pick<StoredTokens, "sub" | "fpType" | "fpName" | "sid">;

/** Links to external accounts, their uniqueness, stored provider tokens and bind states. */
export interface FederationRepository {
  listLinks(sub: string): Promise<FederatedLink[]>;
  /** The links and whether the account exists, in one read. */
  linksOfAccount(sub: string): Promise<{ links: FederatedLink[]; accountExists: boolean }>;
  /**
   * Links at once: the account must exist, the external account must be free or ours
   * (else FederatedAccountTakenError, or AccountNotFoundError), the link is created or
   * updated (an omitted userName keeps the stored one), and given tokens replace the stored ones.
   */
  link(link: NewLink, now: number): Promise<void>;
  /** The link's writes for an account created in the same commit; a taken claim fails that commit's item 0. */
  newAccountLinkItems(link: NewLink, now: number): PendingWrite[];
  /** Removes the link, its uniqueness and its stored tokens; false when there was no such link. */
  unlink(sub: string, fpType: string, fpName: string, sid: string): Promise<boolean>;
  /** Every stored token record of the account at one provider (strongly consistent). */
  tokens(sub: string, fpType: string, fpName: string): Promise<StoredTokens[]>;
  tokensOf(record: TokensRef): Promise<StoredTokens | undefined>;
  /** True when this caller now holds the refresh lease of the revision it read. */
  takeRefreshLease(record: StoredTokens, leaseId: string, leaseUntil: number, now: number): Promise<boolean>;
  /** Writes refreshed tokens and ends the lease; false when the lease was lost meanwhile. */
  saveRefreshed(record: StoredTokens, leaseId: string, tokens: SealedTokens, now: number): Promise<boolean>;
  /** Gives the lease back without a change (the provider could not be reached). */
  releaseLease(record: StoredTokens, leaseId: string): Promise<void>;
  /** Forgets tokens the provider refused to refresh; only the lease holder may. */
  dropTokens(record: StoredTokens, leaseId: string): Promise<void>;
  /** The account an external account is linked to, read from its uniqueness claim. */
  ownerOf(fpType: string, fpName: string, sid: string): Promise<string | undefined>;
  saveState(state: BindState): Promise<void>;
  /** Takes a state once: gone as it is read; undefined when unknown, used or expired. */
  takeState(id: string, now: number): Promise<BindState | undefined>;
}
