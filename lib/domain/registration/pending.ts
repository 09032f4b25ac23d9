import type { Account } from "../accounts/account";
import type { StoredCode } from "../codes/one-time-code";
import type { PasswordHash } from "../credentials/password-hash";

export type { ContactField } from "../accounts/ports";

import type { ContactField } from "../accounts/ports";

/** A contact awaiting its code (interface §3.3). */
export interface PendingContact extends StoredCode {
  value: string;
  confirmed: boolean;
  /** Codes sent so far for this contact, to cap resends. */
  sent: number;
  /**
   * The hosted pages: the value belonged to an account when registered. Its owner was told by
   * message and no code was sent (the stored one was never sent), so no code confirms it.
   */
  taken?: boolean;
}

/** A registration between PUT and the last confirmation (interface §4.4, 4.5). */
export interface PendingRegistration {
  context: string;
  account: Account;
  passwordHash?: PasswordHash;
  contacts: Partial<Record<ContactField, PendingContact>>;
  /** `bindDynClient` action: bound when the account is created. */
  dynamicClientId?: string;
  /** registration.createBeforeConfirm: the account exists already. */
  accountCreated: boolean;
  /** The application that registered, for the session. */
  clientId: string;
  createdAt: number;
  /** The pending item disappears after this (TTL); reads check it too. */
  expiresAt: number;
}

export function allConfirmed(pending: PendingRegistration): boolean {
  return Object.values(pending.contacts).every((c) => c?.confirmed);
}
