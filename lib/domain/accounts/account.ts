import { instanceIdOf } from "./instance-id";

/** A contact as stored: the normal form and whether its owner proved it. */
export interface StoredContact {
  value: string;
  verified: boolean;
}

/**
 * A contact change waiting for its code (interface §2.6, 3.2). Kept on the profile item, so
 * reading the account shows it at no extra cost and confirming it is one transaction.
 */
export interface PendingContactChange {
  /** Identifier in the confirmation URL: the account's instanceId and a random part. */
  state: string;
  value: string;
  salt: string;
  digest: string;
  /** Unix time after which the code is refused. */
  exp: number;
  attemptsLeft: number;
  created: number;
}

export const PENDING_FIELD = { phone_number: "pending_phone_number", email: "pending_email" } as const;

/** interface §3.1 account state. */
export type AccountState =
  | { name: "initial" }
  | { name: "active"; checkedOn: number }
  | { name: "inactivityLock"; on: number }
  | { name: "untouchable"; till?: number };

/** The account as the store keeps it (profile item, without keys). */
export interface Account {
  sub: string;
  family_name?: string;
  given_name?: string;
  middle_name?: string;
  locked: boolean;
  phone_number?: StoredContact;
  email?: StoredContact;
  pending_phone_number?: PendingContactChange;
  pending_email?: PendingContactChange;
  /** interface §4.12: 2 = second factor required. */
  requiredFactor?: number;
  /** interface §4.12: a password change is forced at the next login. */
  needPasswordChange?: boolean;
  /** interface §4.12: login methods refused for this account. */
  methodsLocked?: string[];
  /** interface §3.1. */
  state?: AccountState;
  /** Unix time of the last successful login. */
  lastLoginAt?: number;
  /**
   * Unix time the owner's deletion of the account is due (docs/account/data.md); the account
   * is locked meanwhile, and an operator unlocking it cancels the deletion.
   */
  deletionScheduledAt?: number;
  /**
   * The organization whose SCIM provisioning made the account (docs/scim.md): its names,
   * e-mail address and unlocking are changed there, never through the other routes.
   */
  scimOrg?: string;
  createdAt: number;
  updatedAt: number;
}

export const NAME_ATTRIBUTES = ["family_name", "given_name", "middle_name"] as const;
export type NameAttribute = (typeof NAME_ATTRIBUTES)[number];

/** Attributes nobody may change through the attribute call (interface §2.1 meta.unmodifiable). */
export const UNMODIFIABLE = ["sub"] as const;

/** What an organization's SCIM provisioning alone changes on the accounts it made. */
export const PROVISIONED_ATTRIBUTES = [...NAME_ATTRIBUTES, "email", "pending_email"] as const;

/**
 * Whether a change touches what provisioning owns: a name, the e-mail address (or a change
 * of it waiting for its code), or unlocking (locking stays open, a safety brake).
 */
export function touchesProvisioned(change: {
  set: Partial<Record<string, unknown>>;
  remove: readonly string[];
  contacts?: { email?: unknown };
}): boolean {
  const named = (name: string) => (PROVISIONED_ATTRIBUTES as readonly string[]).includes(name);
  return (
    Object.keys(change.set).some(named) ||
    change.remove.some(named) ||
    change.contacts?.email !== undefined ||
    change.set.locked === false
  );
}

/** A user may not unlock their own account. */
export const SYSTEM_ONLY_ATTRIBUTES = ["locked"] as const;

/** interface §2.6 `notes.actions` for the changes still waiting; expired ones are not shown. */
function notesOf(account: Account, now: number) {
  const actions = (["phone_number", "email"] as const).flatMap((attr) => {
    const pending = account[PENDING_FIELD[attr]];
    if (!pending || pending.exp < now) return [];
    return [
      {
        state: pending.state,
        exp: pending.exp - pending.created,
        status: "code_waiting",
        from: account[attr]?.value ?? "",
        attr,
        attempts_left: pending.attemptsLeft,
        value: pending.value,
        action: attr === "phone_number" ? "validate_mobile" : "validate_mail",
        created: pending.created,
      },
    ];
  });
  return actions.length > 0 ? { notes: { actions } } : {};
}

/** The attribute JSON of interface §2.1 as v3 reads return it. */
export function accountView(account: Account, now = Math.floor(Date.now() / 1000)) {
  return {
    sub: account.sub,
    ...(account.family_name !== undefined && { family_name: account.family_name }),
    ...(account.given_name !== undefined && { given_name: account.given_name }),
    ...(account.middle_name !== undefined && { middle_name: account.middle_name }),
    locked: account.locked,
    ...(account.phone_number && {
      phone_number: { value: account.phone_number.value, vrf: account.phone_number.verified },
    }),
    ...(account.email && {
      email: { value: account.email.value, vrf: account.email.verified },
    }),
    meta: { instanceId: instanceIdOf(account.sub), unmodifiable: [...UNMODIFIABLE] },
    ...notesOf(account, now),
  };
}

export type AccountView = ReturnType<typeof accountView>;
