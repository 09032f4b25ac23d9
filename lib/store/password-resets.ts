import { GetCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import type { PasswordResetRecord, PasswordResetRepository } from "../domain/passwords/ports";
import type { PendingWrite } from "../domain/unit-of-work";
import type { StoreDeps } from "./client";
import { consumeCode, spendAttempt } from "./code-writes";
import { isConditionalCheckFailed } from "./errors";
import { countedInHour } from "./hourly-count";
import { ENTITY, itemOf, keys } from "./keys";
import { pendingWrite, transactItems } from "./pending-writes";
import { transactUnlessRefused } from "./transact";

export function createPasswordResetStore({ client, tableName }: StoreDeps): PasswordResetRepository {
  return {
    async get(sub: string): Promise<PasswordResetRecord | undefined> {
      const { Item } = await client.send(
        new GetCommand({ TableName: tableName, Key: keys.passwordReset(sub), ConsistentRead: true }),
      );
      if (!Item) return undefined;
      const { sub: owner, field, salt, digest, exp, attemptsLeft, createdAt } = Item;
      return { sub: owner, field, salt, digest, exp, attemptsLeft, createdAt };
    },

    sendCountedItem(sub: string, hour: number, max: number): PendingWrite {
      const key = keys.passwordResetsSent(sub, hour);
      // The hourly cap on codes sent to one account: the form cannot be used to flood a mailbox or phone.
      return pendingWrite({ Update: countedInHour(tableName, key, ENTITY.passwordResetsSent, max, hour) });
    },

    putItem(record: PasswordResetRecord): PendingWrite {
      return pendingWrite({
        Put: {
          TableName: tableName,
          Item: itemOf(ENTITY.passwordReset, keys.passwordReset(record.sub), { ...record, expiresAt: record.exp }),
        },
      });
    },

    async recordWrongCode(sub: string, digest: string): Promise<boolean> {
      try {
        await client.send(new UpdateCommand(spendAttempt(tableName, keys.passwordReset(sub), digest)));
        return true;
      } catch (error) {
        if (isConditionalCheckFailed(error)) return false;
        throw error;
      }
    },

    consumeItem(sub: string, digest: string, now: number): PendingWrite {
      return pendingWrite({ Delete: consumeCode(tableName, keys.passwordReset(sub), digest, now) });
    },

    commit: (writes: PendingWrite[]): Promise<boolean> => transactUnlessRefused(client, transactItems(writes)),
  };
}
