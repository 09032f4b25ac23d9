import { UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { type Account, type NameAttribute, PENDING_FIELD, touchesProvisioned } from "../domain/accounts/account";
import {
  type AccountChange,
  AccountChangedError,
  AccountConflictError,
  AccountNotFoundError,
  AccountProvisionedError,
  type UniqueField,
} from "../domain/accounts/ports";
import { foldName } from "../domain/search/fold";
import { claimItem, exists, nameIndexDelete, nameIndexPut, releaseItem, toAccount } from "./account-items";
import type { StoreDeps } from "./client";
import { failedConditions, isConditionalCheckFailed, isConflictAfterRetries } from "./errors";
import { keys } from "./keys";
import type { TransactItem } from "./pending-writes";
import { transactWrite } from "./transact";
import { buildUpdate } from "./update-expression";

/** What provisioning owns is changed by it alone: refused on an account it made. */
const notProvisioned = "attribute_not_exists(#scimOrg)";

/** An update that read the account itself retries this often when the account moves on. */
const UPDATE_ATTEMPTS = 3;

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

/** The account store's `update`; `get` reads the account when the caller did not. */
export function accountUpdate(
  { client, tableName }: StoreDeps,
  namesIndexed: readonly NameAttribute[],
  get: (sub: string) => Promise<Account | undefined>,
) {
  /**
   * Changes attributes. Names and the lock are one conditional UpdateItem; contact
   * changes also move the uniqueness claims, and changes of indexed names their name
   * index items, in one transaction guarded by the values we read, so a concurrent
   * change cannot orphan a claim or an index item. Without `current` such a change
   * reads the account first (two round trips) and reads again if it moved on.
   */
  async function updateAccount(sub: string, change: AccountChange, current?: Account): Promise<Account> {
    const now = Math.floor(Date.now() / 1000);
    const contacts = change.contacts ?? {};
    const contactFields = (Object.keys(contacts) as Array<"email" | "phone_number">).filter(
      (f) => contacts[f] !== undefined,
    );
    const indexedChanges = namesIndexed.filter((name) => name in change.set || change.remove.includes(name));
    const pendingGuard = replacedPendingGuard(change.replacesPending ?? {});
    if (!change.byProvisioning && touchesProvisioned(change)) {
      pendingGuard.guards.push(notProvisioned);
      pendingGuard.names["#scimOrg"] = "scimOrg";
      if (current?.scimOrg) throw new AccountProvisionedError(current.scimOrg);
    }
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
        // The old item comes back as DynamoDB wrote it (the document client leaves errors alone).
        const found = (error as { Item?: { scimOrg?: { S?: string } } }).Item;
        const provisionedBy = found?.scimOrg?.S;
        if (provisionedBy && pendingGuard.names["#scimOrg"]) throw new AccountProvisionedError(provisionedBy);
        // The account is there: the waiting change it replaces moved on meanwhile.
        if (found) throw new AccountChangedError();
        throw new AccountNotFoundError(sub);
      }
    }
    if (!current) {
      for (let attempt = 1; ; attempt++) {
        const read = await get(sub);
        if (!read) throw new AccountNotFoundError(sub);
        try {
          return await updateAccount(sub, change, read);
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
        claims.push(claimItem(tableName, field, next.value, sub));
        claimFields.push(field);
      }
      if (before && before.value !== next?.value) {
        claims.push(releaseItem(tableName, field, before.value, sub));
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
        indexItems.push(nameIndexDelete(tableName, name, before, sub));
      }
      if (next !== undefined) indexItems.push(nameIndexPut(tableName, name, next, sub));
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
  }
  return updateAccount;
}
