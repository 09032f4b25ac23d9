import { randomUUID } from "node:crypto";
import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import {
  type Account,
  NAME_ATTRIBUTES,
  type NameAttribute,
  PENDING_FIELD,
  type StoredContact,
} from "../domain/accounts/account";
import {
  type AccountChange,
  AccountChangedError,
  AccountConflictError,
  AccountNotFoundError,
  type AccountRepository,
  type UniqueField,
} from "../domain/accounts/ports";
import type { PasswordHash, StoredPasswordHash } from "../domain/credentials/password-hash";
import { foldName } from "../domain/search/fold";
import type { PendingWrite } from "../domain/unit-of-work";
import { failedConditions, isConditionalCheckFailed, isConflictAfterRetries } from "./errors";
import { ENTITY, gsi1, itemOf, keys } from "./keys";
import { pendingWrite, type TransactItem, transactItems } from "./pending-writes";
import { transactWrite } from "./transact";
import { buildUpdate } from "./update-expression";

/** The writes of one account creation, with the unique field each guards (by index). */
export interface AccountCreation {
  items: TransactItem[];
  fields: Array<UniqueField | undefined>;
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
  "pending_phone_number",
  "pending_email",
  "requiredFactor",
  "needPasswordChange",
  "methodsLocked",
  "state",
  "lastLoginAt",
  "createdAt",
  "updatedAt",
] as const;

export function toAccount(item: Record<string, unknown>): Account {
  const account: Record<string, unknown> = {};
  for (const field of PROFILE_FIELDS) if (item[field] !== undefined) account[field] = item[field];
  return account as unknown as Account;
}

function nameIndexPutOf(tableName: string, name: NameAttribute, value: string, sub: string) {
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
      items.push(nameIndexPutOf(tableName, name, value, account.sub));
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

/** Guards a new waiting contact change on the one it replaces (its state, or none). */
function replacedPendingGuard(replaces: Partial<Record<"email" | "phone_number", string | null>>) {
  const guards: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  for (const [field, state] of Object.entries(replaces) as Array<["email" | "phone_number", string | null]>) {
    names[`#gp_${field}`] = PENDING_FIELD[field];
    if (state === null) {
      guards.push(`attribute_not_exists(#gp_${field})`);
    } else {
      names["#gp_state"] = "state";
      values[`:gp_${field}`] = state;
      guards.push(`#gp_${field}.#gp_state = :gp_${field}`);
    }
  }
  return { guards, names, values };
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
  indexedNames,
}: StoreDeps & { indexedNames: readonly string[] }): AccountRepository {
  const namesIndexed = NAME_ATTRIBUTES.filter((name) => indexedNames.includes(name));

  const nameIndexPut = (name: NameAttribute, value: string, sub: string) => nameIndexPutOf(tableName, name, value, sub);

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

  function creationItems(account: Account, passwordHash?: PasswordHash): AccountCreation {
    return accountCreationItems(
      tableName,
      namesIndexed,
      account,
      passwordHash && { hash: passwordHash, changedAt: account.createdAt },
    );
  }

  async function runCreation(
    creation: AccountCreation,
    extra: TransactItem[] = [],
    onExtraFailed?: (extraIndexes: number[]) => Error,
  ): Promise<void> {
    try {
      await transactWrite(client, [...creation.items, ...extra]);
    } catch (error) {
      const failed = failedConditions(error);
      if (!failed || failed.length === 0) throw error;
      const own = failed.filter((i) => i < creation.items.length);
      if (own.length > 0) {
        throw new AccountConflictError(
          own.map((i) => creation.fields[i]).filter((f): f is UniqueField => f !== undefined),
        );
      }
      throw onExtraFailed?.(failed.map((i) => i - creation.items.length)) ?? error;
    }
  }

  const store = {
    /** Marks a contact verified, provided it still holds the value that was confirmed. */
    verifyContactItem(sub: string, field: "email" | "phone_number", value: string): PendingWrite {
      return pendingWrite({
        Update: {
          TableName: tableName,
          Key: keys.userProfile(sub),
          UpdateExpression: "SET #f.verified = :yes",
          // A contact changed since the code was sent must not become verified by it.
          ConditionExpression: "#f.#v = :value",
          ExpressionAttributeNames: { "#f": field, "#v": "value" },
          ExpressionAttributeValues: { ":yes": true, ":value": value },
        },
      });
    },

    /** Which account holds a contact value, from its uniqueness claim. */
    async claimOwner(field: "email" | "phone_number", value: string): Promise<string | undefined> {
      const key = field === "email" ? keys.uniqueEmail(value) : keys.uniquePhone(value);
      const { Item } = await client.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }));
      return Item?.owner as string | undefined;
    },

    /** Counts one wrong contact-change code; the attempts left, or undefined when none were. */
    async recordWrongContactCode(
      sub: string,
      field: "email" | "phone_number",
      state: string,
    ): Promise<number | undefined> {
      const answer = randomUUID();
      try {
        const { Attributes } = await client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.userProfile(sub),
            UpdateExpression:
              "SET #p.attemptsLeft = #p.attemptsLeft - :one, #p.wrongAnswers = list_append(if_not_exists(#p.wrongAnswers, :none), :answers)",
            // Only the change this state names, never below zero, and each answer once: when
            // DynamoDB applied it but the answer was lost, the SDK's retry carries the same id.
            ConditionExpression:
              "#p.#state = :state AND #p.attemptsLeft > :zero AND NOT contains(#p.wrongAnswers, :answer)",
            ExpressionAttributeNames: { "#p": PENDING_FIELD[field], "#state": "state" },
            ExpressionAttributeValues: {
              ":one": 1,
              ":zero": 0,
              ":state": state,
              ":answer": answer,
              ":answers": [answer],
              ":none": [],
            },
            ReturnValues: "UPDATED_NEW",
          }),
        );
        return (Attributes?.[PENDING_FIELD[field]] as { attemptsLeft: number } | undefined)?.attemptsLeft;
      } catch (error) {
        if (!isConditionalCheckFailed(error)) throw error;
        // Refused: no attempt was left, or this very answer was counted by the first try.
        const { Item } = await client.send(
          new GetCommand({ TableName: tableName, Key: keys.userProfile(sub), ConsistentRead: true }),
        );
        const pending = Item?.[PENDING_FIELD[field]] as { attemptsLeft: number; wrongAnswers?: string[] } | undefined;
        return pending?.wrongAnswers?.includes(answer) ? pending.attemptsLeft : undefined;
      }
    },

    /**
     * Applies a confirmed contact change: the contact takes the new value, verified, the
     * pending change goes, and the uniqueness claims move, all in one transaction
     * guarded by the very code that was checked and by the contact we read.
     */
    async applyContactChange(account: Account, field: "email" | "phone_number", now: number): Promise<Account> {
      const pending = account[PENDING_FIELD[field]];
      if (!pending) throw new AccountChangedError();
      const before = account[field];
      const next: StoredContact = { value: pending.value, verified: true };
      const names = { "#f": field, "#p": PENDING_FIELD[field], "#state": "state", "#v": "value" };
      const values: Record<string, unknown> = {
        ":next": next,
        ":now": now,
        ":state": pending.state,
        ":digest": pending.digest,
        ":zero": 0,
      };
      const guards = [
        // The code checked is still the stored one, with attempts left, not expired.
        "#p.#state = :state",
        "#p.digest = :digest",
        "#p.attemptsLeft > :zero",
        "#p.exp >= :now",
      ];
      if (before) {
        // The contact we release is still the one we read.
        guards.push("#f.#v = :before");
        values[":before"] = before.value;
      } else {
        guards.push("attribute_not_exists(#f)");
      }
      const items: TransactItem[] = [
        {
          Update: {
            TableName: tableName,
            Key: keys.userProfile(account.sub),
            UpdateExpression: "SET #f = :next, updatedAt = :now REMOVE #p",
            ConditionExpression: guards.join(" AND "),
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: values,
          },
        },
      ];
      if (before?.value !== next.value) {
        items.push(claimItem(field, next.value, account.sub));
        if (before) items.push(releaseItem(field, before.value, account.sub));
      }
      try {
        await transactWrite(client, items);
      } catch (error) {
        const failed = failedConditions(error);
        if (failed?.includes(0)) throw new AccountChangedError();
        if (failed && failed.length > 0) throw new AccountConflictError([field]);
        throw error;
      }
      const changed: Account = { ...account, [field]: next, updatedAt: now };
      delete changed[PENDING_FIELD[field]];
      return changed;
    },

    /** One strongly consistent read of the profile item. */
    async get(sub: string): Promise<Account | undefined> {
      const { Item } = await client.send(
        new GetCommand({ TableName: tableName, Key: keys.userProfile(sub), ConsistentRead: true }),
      );
      return Item ? toAccount(Item) : undefined;
    },

    /** The account, its claims and its credential in one transaction: all or none. */
    async create(account: Account, passwordHash?: PasswordHash): Promise<void> {
      await runCreation(creationItems(account, passwordHash));
    },

    /**
     * Runs a creation with extra items (after the account's own); a failed condition on
     * an account item is an AccountConflictError, on an extra item `onExtraFailed`.
     */
    async createWith(
      account: Account,
      passwordHash: PasswordHash | undefined,
      extra: PendingWrite[],
      onExtraFailed: (extraIndexes: number[]) => Error,
    ): Promise<void> {
      await runCreation(creationItems(account, passwordHash), transactItems(extra), onExtraFailed);
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
      const pendingGuard = replacedPendingGuard(change.replacesPending ?? {});
      if (contactFields.length === 0 && indexedChanges.length === 0) {
        const update = buildUpdate({ ...change.set, updatedAt: now }, change.remove);
        try {
          const { Attributes } = await client.send(
            new UpdateCommand({
              TableName: tableName,
              Key: keys.userProfile(sub),
              ...update,
              ConditionExpression: [exists, ...pendingGuard.guards].join(" AND "),
              ExpressionAttributeNames: { ...update.ExpressionAttributeNames, ...pendingGuard.names },
              ExpressionAttributeValues: { ...update.ExpressionAttributeValues, ...pendingGuard.values },
              ReturnValues: "ALL_NEW",
              ReturnValuesOnConditionCheckFailure: "ALL_OLD",
            }),
          );
          return toAccount(Attributes ?? {});
        } catch (error) {
          if (!isConditionalCheckFailed(error)) throw error;
          // The account is there: the waiting change it replaces moved on meanwhile.
          if ((error as { Item?: unknown }).Item) throw new AccountChangedError();
          throw new AccountNotFoundError(sub);
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
      const claims: TransactItem[] = [];
      const claimFields: UniqueField[] = [];
      const guards: string[] = [exists, ...pendingGuard.guards];
      const guardValues: Record<string, unknown> = { ...pendingGuard.values };
      const guardNames: Record<string, string> = { ...pendingGuard.names };
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
      const indexItems: TransactItem[] = [];
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
        if (isConflictAfterRetries(error)) throw new AccountChangedError();
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
