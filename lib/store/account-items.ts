import type { Account, NameAttribute } from "../domain/accounts/account";
import type { UniqueField } from "../domain/accounts/ports";
import type { StoredPasswordHash } from "../domain/credentials/password-hash";
import { foldName } from "../domain/search/fold";
import { ENTITY, gsi1, itemOf, keys } from "./keys";
import type { TransactItem } from "./pending-writes";

/** The items of an account besides its profile's updates: creation, uniqueness claims, name index. */

/** The writes of one account creation, with the unique field each guards (by index). */
export interface AccountCreation {
  items: TransactItem[];
  fields: Array<UniqueField | undefined>;
}

// Conditions, named so each write says why it may fail.
/** The item must not exist yet: a create never overwrites. */
const isNew = "attribute_not_exists(PK)";
/** The item must exist: an update never creates an account by accident. */
export const exists = "attribute_exists(PK)";
/** A uniqueness claim may be taken when free or already ours (idempotent retries). */
const claimFreeOrOurs = "attribute_not_exists(PK) OR #owner = :sub";
/** A uniqueness claim is released only by its owner. */
const claimOurs = "#owner = :sub";

const PROFILE_FIELDS = [
  "sub",
  "scimOrg",
  "family_name",
  "given_name",
  "middle_name",
  "locked",
  "phone_number",
  "email",
  "pending_phone_number",
  "pending_email",
  "requiredFactor",
  "needPasswordChange",
  "methodsLocked",
  "state",
  "lastLoginAt",
  "deletionScheduledAt",
  "createdAt",
  "updatedAt",
] as const;

export function toAccount(item: Record<string, unknown>): Account {
  const account: Record<string, unknown> = {};
  for (const field of PROFILE_FIELDS) if (item[field] !== undefined) account[field] = item[field];
  return account as unknown as Account;
}

export function nameIndexPut(tableName: string, name: NameAttribute, value: string, sub: string) {
  return {
    Put: {
      TableName: tableName,
      Item: itemOf(ENTITY.nameIndex, keys.nameIndex(name, foldName(value), sub), { sub, attribute: name }),
    },
  };
}

/**
 * The writes that create an account: the profile (only if new), its uniqueness claims
 * (only if free), its name index items and its credential. `inactiveSince`: when it
 * counts as inactive from (default its creation; null: not a candidate, e.g. locked).
 */
export function accountCreationItems(
  tableName: string,
  namesIndexed: readonly NameAttribute[],
  account: Account,
  credential?: { hash: StoredPasswordHash; changedAt?: number; history?: StoredPasswordHash[] },
  inactiveSince: number | null = account.createdAt,
): AccountCreation {
  const fields: Array<UniqueField | undefined> = ["sub"];
  const items: TransactItem[] = [
    {
      Put: {
        TableName: tableName,
        Item: itemOf(ENTITY.user, keys.userProfile(account.sub), {
          ...account,
          ...(inactiveSince !== null && gsi1.inactivity(account.sub, inactiveSince)),
        }),
        ConditionExpression: isNew,
      },
    },
  ];
  if (account.email) {
    fields.push("email");
    items.push({
      Put: {
        TableName: tableName,
        Item: itemOf(ENTITY.uniqueEmail, keys.uniqueEmail(account.email.value), { owner: account.sub }),
        ConditionExpression: isNew,
      },
    });
  }
  if (account.phone_number) {
    fields.push("phone_number");
    items.push({
      Put: {
        TableName: tableName,
        Item: itemOf(ENTITY.uniquePhone, keys.uniquePhone(account.phone_number.value), { owner: account.sub }),
        ConditionExpression: isNew,
      },
    });
  }
  for (const name of namesIndexed) {
    const value = account[name];
    if (value !== undefined) {
      fields.push(undefined);
      items.push(nameIndexPut(tableName, name, value, account.sub));
    }
  }
  if (credential) {
    fields.push(undefined);
    items.push({
      Put: {
        TableName: tableName,
        Item: itemOf(ENTITY.passwordCredential, keys.passwordCredential(account.sub), {
          ...credential.hash,
          changedAt: credential.changedAt ?? account.createdAt,
          ...(credential.history && { history: credential.history }),
        }),
      },
    });
  }
  return { items, fields };
}

export function nameIndexDelete(tableName: string, name: NameAttribute, value: string, sub: string) {
  return { Delete: { TableName: tableName, Key: keys.nameIndex(name, foldName(value), sub) } };
}

/** Claims a contact value for `sub`: refused while another account holds it. */
export function claimItem(tableName: string, field: "email" | "phone_number", value: string, sub: string) {
  const key = field === "email" ? keys.uniqueEmail(value) : keys.uniquePhone(value);
  const entity = field === "email" ? ENTITY.uniqueEmail : ENTITY.uniquePhone;
  return {
    Put: {
      TableName: tableName,
      Item: itemOf(entity, key, { owner: sub }),
      ConditionExpression: claimFreeOrOurs,
      ExpressionAttributeNames: { "#owner": "owner" },
      ExpressionAttributeValues: { ":sub": sub },
    },
  };
}

/** Releases `sub`'s claim of a contact value. */
export function releaseItem(tableName: string, field: "email" | "phone_number", value: string, sub: string) {
  const key = field === "email" ? keys.uniqueEmail(value) : keys.uniquePhone(value);
  return {
    Delete: {
      TableName: tableName,
      Key: key,
      ConditionExpression: claimOurs,
      ExpressionAttributeNames: { "#owner": "owner" },
      ExpressionAttributeValues: { ":sub": sub },
    },
  };
}
