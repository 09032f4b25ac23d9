import { GetCommand } from "@aws-sdk/lib-dynamodb";
import { type Account, NAME_ATTRIBUTES } from "../domain/accounts/account";
import { AccountConflictError, type AccountRepository, type UniqueField } from "../domain/accounts/ports";
import type { PasswordHash } from "../domain/credentials/password-hash";
import type { PendingWrite } from "../domain/unit-of-work";
import { contactOperations } from "./account-contacts";
import { type AccountCreation, accountCreationItems, toAccount } from "./account-items";
import { accountUpdate } from "./account-update";
import type { StoreDeps } from "./client";
import { failedConditions } from "./errors";
import { keys } from "./keys";
import { type TransactItem, transactItems } from "./pending-writes";
import { transactWrite } from "./transact";

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

  /** One strongly consistent read of the profile item. */
  async function get(sub: string): Promise<Account | undefined> {
    const { Item } = await client.send(
      new GetCommand({ TableName: tableName, Key: keys.userProfile(sub), ConsistentRead: true }),
    );
    return Item ? toAccount(Item) : undefined;
  }

  return {
    ...contactOperations({ client, tableName }),
    get,
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

    update: accountUpdate({ client, tableName }, namesIndexed, get),
  };
}
