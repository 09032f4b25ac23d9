import type { Language } from "../messages/ports";
import type { PendingWrite } from "../unit-of-work";

/** An invitation to join an organization (docs/organizations.md, Invitations); never its token. */
export interface Invitation {
  id: string;
  orgId: string;
  /** Normalized (lower-case): the address the link went to, and the only one that may accept it. */
  email: string;
  roles: string[];
  language: Language;
  /** The admin's subject id; absent when an application invited. */
  invitedBy?: string;
  createdAt: number;
  /** Epoch seconds; also the items' TTL. */
  expiresAt: number;
  /** Set once accepted: by whom and when. */
  acceptedBy?: string;
  acceptedAt?: number;
}

/** A page of an organization's pending invitations and where the next starts. */
export interface InvitationPage {
  invitations: Invitation[];
  /** The last invitation id of this page, while more may follow. */
  next?: string;
}

/** Why storing or consuming an invitation was refused, by the condition that failed. */
export type InvitationRefusal = "org" | "pending" | "gone";

export class InvitationRefusedError extends Error {
  constructor(readonly reason: InvitationRefusal) {
    super(`invitation refused: ${reason}`);
    this.name = "InvitationRefusedError";
  }
}

/**
 * Invitations: the invitation in the organization's partition, the invitee's guard (one
 * pending invitation per address) beside it, and the token's digest item for the link.
 */
export interface InvitationRepository {
  /**
   * Stores the invitation and its token digest in one transaction, checked against the
   * organization and a pending invitation of the same address (refusal "pending").
   */
  create(invitation: Invitation, tokenDigest: string, alsoWrite: PendingWrite[]): Promise<void>;
  /** The invitation a link's token digest names while pending (the token item goes when it is used or revoked). */
  byToken(tokenDigest: string): Promise<Invitation | undefined>;
  get(orgId: string, id: string): Promise<Invitation | undefined>;
  /** Pending (unaccepted, unexpired) invitations in id order after `after`. */
  pending(orgId: string, page: { limit: number; after?: string }, now: number): Promise<InvitationPage>;
  /** Deletes a pending invitation with its guard and token item; refused "gone" when accepted or missing. */
  revoke(invitation: Invitation, alsoWrite: PendingWrite[]): Promise<void>;
  /**
   * The writes that consume an invitation, to ride in the membership's transaction: they
   * fail unless it is still pending and unexpired at `now` (single use).
   */
  consumeWrites(invitation: Invitation, tokenDigest: string, sub: string, now: number): PendingWrite[];
}
