import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import type { LoginCodeRecord, LoginCodeRepository } from "../domain/security/ports";
import type { StoreDeps } from "./client";
import { consumeCode, spendAttempt } from "./code-writes";
import { isConditionalCheckFailed } from "./errors";
import { ENTITY, itemOf, keys } from "./keys";

/** Answers false instead of throwing when the write's condition refused it. */
async function conditional(write: () => Promise<unknown>): Promise<boolean> {
  try {
    await write();
    return true;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return false;
    throw error;
  }
}

/** One-time sign-in codes sent by e-mail or SMS (docs/sign-in.md): the latest per account. */
export function createLoginCodeStore({ client, tableName }: StoreDeps): LoginCodeRepository {
  return {
    async get(sub) {
      const { Item } = await client.send(
        new GetCommand({ TableName: tableName, Key: keys.loginCode(sub), ConsistentRead: true }),
      );
      if (!Item) return undefined;
      const { channel, salt, digest, exp, attemptsLeft } = Item;
      return { channel, salt, digest, exp, attemptsLeft };
    },

    async put(sub: string, record: LoginCodeRecord) {
      await client.send(
        new PutCommand({
          TableName: tableName,
          Item: itemOf(ENTITY.loginCode, keys.loginCode(sub), { ...record, expiresAt: record.exp }),
        }),
      );
    },

    recordWrongCode: (sub: string, digest: string) =>
      conditional(() => client.send(new UpdateCommand(spendAttempt(tableName, keys.loginCode(sub), digest)))),

    // Two sign-ins with one code: only the first deletes it.
    consume: (sub: string, digest: string, now: number) =>
      conditional(() => client.send(new DeleteCommand(consumeCode(tableName, keys.loginCode(sub), digest, now)))),
  };
}
