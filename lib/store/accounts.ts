import {
  type DynamoDBDocumentClient,
  GetCommand,
  type TransactWriteCommand,
  UpdateCommand,
} from "@aws-sdk/lib-dynamodb";
import { config } from "../config";
import { type Account, NAME_ATTRIBUTES, type NameAttribute, type StoredContact } from "../domain/accounts/account";
import type { PasswordHash } from "../domain/credentials/password-hash";
import { foldName } from "../domain/search/fold";
import { failedConditions, isConditionalCheckFailed } from "./errors";
import { ENTITY, itemOf, keys } from "./keys";
import { isTransactionConflict, transactWrite } from "./transact";
import { buildUpdate } from "./update-expression";

export type UniqueField = "sub" | "email" | "phone_number";

/** The account cannot be written because these values belong to another account. */
export class AccountConflictError extends Error {
  constructor(readonly fields: UniqueField[]) {
    super(`already used: ${fields.join(", ")}`);
    this.name = "AccountConflictError";
  }
}

export class AccountNotFoundError extends Error {
  constructor(readonly sub: string) {
    super("account not found");
    this.name = "AccountNotFoundError";
  }
}

/** Someone else changed the account between our read and our write; the caller may retry. */
export class AccountChangedError extends Error {
  constructor() {
    super("account changed concurrently");
    this.name = "AccountChangedError";
  }
}

export interface AccountChange {
  set: Partial<Pick<Account, "family_name" | "given_name" | "middle_name" | "locked">>;
  remove: Array<"family_name" | "given_name" | "middle_name">;
  /** New contact values; `null` removes the contact. Needs the current account. */
  contacts?: { phone_number?: StoredContact | null; email?: StoredContact | null };
}

// Conditions, named so each write says why it may fail.
/** The item must not exist yet: a create never overwrites. */
const isNew = "attribute_not_exists(PK)";
/** The item must exist: an update never creates an account by accident. */
const exists = "attribute_exists(PK)";
/** A uniqueness claim may be taken when free or already ours (idempotent retries). */
const claimFreeOrOurs = "attribute_not_exists(PK) OR #owner = :sub";
/** A uniqueness claim is released only by its owner. */
const claimOurs = "#owner = :sub";

const PROFILE_FIELDS = [
  "sub",
  "family_name",
  "given_name",
  "middle_name",
  "locked",
  "phone_number",
  "email",
  "createdAt",
  "updatedAt",
] as const;

export function toAccount(item: Record<string, unknown>): Account {
  const account: Record<string, unknown> = {};
  for (const field of PROFILE_FIELDS) if (item[field] !== undefined) account[field] = item[field];
  return account as unknown as Account;
}

export interface StoreDeps {
  client: DynamoDBDocumentClient;
  tableName: string;
}

/** An update that read the account itself retries this often when the account moves on. */
const UPDATE_ATTEMPTS = 3;

/**
 * `indexedNames`: the name attributes user search finds accounts by (search.indexedAttributes);
 * each has an index item written in the same transaction as the account.
 */
export function createAccountStore({
  client,
  tableName,
  indexedNames = config().settings.search.indexedAttributes,
}: StoreDeps & { indexedNames?: readonly string[] }) {
  const namesIndexed = NAME_ATTRIBUTES.filter((name) => indexedNames.includes(name));

  function nameIndexPut(name: NameAttribute, value: string, sub: string) {
    return {
      Put: {
        TableName: tableName,
        Item: itemOf(ENTITY.nameIndex, keys.nameIndex(name, foldName(value), sub), { sub, attribute: name }),
      },
    };
  }

  function nameIndexDelete(name: NameAttribute, value: string, sub: string) {
    return { Delete: { TableName: tableName, Key: keys.nameIndex(name, foldName(value), sub) } };
  }

  function claimItem(field: "email" | "phone_number", value: string, sub: string) {
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

  function releaseItem(field: "email" | "phone_number", value: string, sub: string) {
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

  const store = {
    /** One strongly consistent read of the profile item. */
    async get(sub: string): Promise<Account | undefined> {
      const { Item } = await client.send(
        new GetCommand({ TableName: tableName, Key: keys.userProfile(sub), ConsistentRead: true }),
      );
      return Item ? toAccount(Item) : undefined;
    },

    /**
     * The account, its uniqueness claims and its password credential in one
     * transaction: either all exist afterwards or none does.
     */
    async create(account: Account, passwordHash?: PasswordHash): Promise<void> {
      const fields: UniqueField[] = ["sub"];
      const items: NonNullable<TransactWriteCommand["input"]["TransactItems"]> = [
        {
          Put: {
            TableName: tableName,
            Item: itemOf(ENTITY.user, keys.userProfile(account.sub), account),
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
        if (value !== undefined) items.push(nameIndexPut(name, value, account.sub));
      }
      if (passwordHash) {
        items.push({
          Put: {
            TableName: tableName,
            Item: itemOf(ENTITY.passwordCredential, keys.passwordCredential(account.sub), {
              ...passwordHash,
              changedAt: account.createdAt,
            }),
          },
        });
      }
      try {
        await transactWrite(client, items);
      } catch (error) {
        const failed = failedConditions(error);
        if (failed && failed.length > 0) throw new AccountConflictError(failed.map((i) => fields[i]));
        throw error;
      }
    },

    /**
     * Changes attributes. Names and the lock are one conditional UpdateItem; contact
     * changes also move the uniqueness claims, and changes of indexed names their name
     * index items, in one transaction guarded by the values we read, so a concurrent
     * change cannot orphan a claim or an index item. Without `current` such a change
     * reads the account first (two round trips) and reads again if it moved on.
     */
    async update(sub: string, change: AccountChange, current?: Account): Promise<Account> {
      const now = Math.floor(Date.now() / 1000);
      const contacts = change.contacts ?? {};
      const contactFields = (Object.keys(contacts) as Array<"email" | "phone_number">).filter(
        (f) => contacts[f] !== undefined,
      );
      const indexedChanges = namesIndexed.filter((name) => name in change.set || change.remove.includes(name));
      if (contactFields.length === 0 && indexedChanges.length === 0) {
        const update = buildUpdate({ ...change.set, updatedAt: now }, change.remove);
        try {
          const { Attributes } = await client.send(
            new UpdateCommand({
              TableName: tableName,
              Key: keys.userProfile(sub),
              ...update,
              ConditionExpression: exists,
              ReturnValues: "ALL_NEW",
            }),
          );
          return toAccount(Attributes ?? {});
        } catch (error) {
          if (isConditionalCheckFailed(error)) throw new AccountNotFoundError(sub);
          throw error;
        }
      }
      if (!current) {
        for (let attempt = 1; ; attempt++) {
          const read = await store.get(sub);
          if (!read) throw new AccountNotFoundError(sub);
          try {
            return await store.update(sub, change, read);
          } catch (error) {
            if (!(error instanceof AccountChangedError) || attempt >= UPDATE_ATTEMPTS) throw error;
          }
        }
      }

      const set: Record<string, unknown> = { ...change.set, updatedAt: now };
      const remove: string[] = [...change.remove];
      const claims: NonNullable<TransactWriteCommand["input"]["TransactItems"]> = [];
      const claimFields: UniqueField[] = [];
      const guards: string[] = [exists];
      const guardValues: Record<string, unknown> = {};
      const guardNames: Record<string, string> = {};
      for (const field of contactFields) {
        const next = contacts[field];
        const before = current[field];
        guardNames[`#g_${field}`] = field;
        if (before) {
          // The contact we release must still be the one we read.
          guards.push(`#g_${field}.#g_value = :g_${field}`);
          guardNames["#g_value"] = "value";
          guardValues[`:g_${field}`] = before.value;
        } else {
          // Nobody may have added this contact since we read.
          guards.push(`attribute_not_exists(#g_${field})`);
        }
        if (next) set[field] = next;
        else remove.push(field);
        if (next && next.value !== before?.value) {
          claims.push(claimItem(field, next.value, sub));
          claimFields.push(field);
        }
        if (before && before.value !== next?.value) {
          claims.push(releaseItem(field, before.value, sub));
          claimFields.push(field);
        }
      }
      const indexItems: NonNullable<TransactWriteCommand["input"]["TransactItems"]> = [];
      for (const name of indexedChanges) {
        const before = current[name];
        const next = change.set[name];
        if (before !== undefined && next !== undefined && foldName(before) === foldName(next)) continue;
        guardNames[`#g_${name}`] = name;
        if (before === undefined) {
          // Nobody may have set this name since we read, or its index item would be left behind.
          guards.push(`attribute_not_exists(#g_${name})`);
        } else {
          // The index item we delete must belong to the name still stored.
          guards.push(`#g_${name} = :g_${name}`);
          guardValues[`:g_${name}`] = before;
          indexItems.push(nameIndexDelete(name, before, sub));
        }
        if (next !== undefined) indexItems.push(nameIndexPut(name, next, sub));
      }
      const update = buildUpdate(set, remove);
      const profileUpdate = {
        Update: {
          TableName: tableName,
          Key: keys.userProfile(sub),
          UpdateExpression: update.UpdateExpression,
          ConditionExpression: guards.join(" AND "),
          ExpressionAttributeNames: { ...update.ExpressionAttributeNames, ...guardNames },
          ExpressionAttributeValues: { ...update.ExpressionAttributeValues, ...guardValues },
        },
      };
      try {
        // Index items last: claims keep their positions, which name the failed field below.
        await transactWrite(client, [profileUpdate, ...claims, ...indexItems]);
      } catch (error) {
        const failed = failedConditions(error);
        if (failed?.includes(0)) throw new AccountChangedError();
        if (failed && failed.length > 0) throw new AccountConflictError(failed.map((i) => claimFields[i - 1]));
        // Still clashing with a concurrent change after transactWrite's retries: as if it had won.
        if (isTransactionConflict(error)) throw new AccountChangedError();
        throw error;
      }
      const next: Account = { ...current, ...(change.set as Partial<Account>), updatedAt: now };
      for (const name of remove) delete (next as unknown as Record<string, unknown>)[name];
      for (const field of contactFields) {
        const value = contacts[field];
        if (value) next[field] = value;
      }
      return next;
    },
  };
  return store;
}

export type AccountStore = ReturnType<typeof createAccountStore>;
