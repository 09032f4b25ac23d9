import { instanceIdOf } from "./instance-id";

/** A contact as stored: the normal form and whether its owner proved it. */
export interface StoredContact {
  value: string;
  verified: boolean;
}

/** The account as the store keeps it (profile item, without keys). */
export interface Account {
  sub: string;
  family_name?: string;
  given_name?: string;
  middle_name?: string;
  locked: boolean;
  phone_number?: StoredContact;
  email?: StoredContact;
  createdAt: number;
  updatedAt: number;
}

export const NAME_ATTRIBUTES = ["family_name", "given_name", "middle_name"] as const;
export type NameAttribute = (typeof NAME_ATTRIBUTES)[number];

/** Attributes nobody may change through the attribute call (SPEC 2.1 meta.unmodifiable). */
export const UNMODIFIABLE = ["sub"] as const;

/** A user may not unlock their own account. */
export const SYSTEM_ONLY_ATTRIBUTES = ["locked"] as const;

/** The attribute JSON of SPEC 2.1 as v3 reads return it. */
export function accountView(account: Account) {
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
  };
}

export type AccountView = ReturnType<typeof accountView>;
