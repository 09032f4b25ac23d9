import { DeleteCommand, GetCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import type { StoredGenerator, TotpRepository } from "../domain/security/ports";
import type { StoreDeps } from "./client";
import { failedConditions, isConditionalCheckFailed } from "./errors";
import { ENTITY, itemOf, keys } from "./keys";
import { queryAll } from "./paging";
import { transactWrite } from "./transact";

/** TOTP generators and secrets waiting for enrolment (interface §4.15). */
export function createTotpStore({ client, tableName }: StoreDeps): TotpRepository {
  return {
    /** Keeps an issued secret, sealed, until its TTL (reads check `expiresAt` too). */
    async putPending(sub: string, digest: string, sealedSecret: string, expiresAt: number): Promise<void> {
      await client.send(
        new UpdateCommand({
          TableName: tableName,
          Key: keys.totpPending(sub, digest),
          UpdateExpression: "SET entity = :entity, schemaVersion = :v, secret = :secret, expiresAt = :exp",
          ExpressionAttributeValues: {
            ":entity": ENTITY.totpPending,
            ":v": 1,
            ":secret": sealedSecret,
            ":exp": expiresAt,
          },
        }),
      );
    },

    async pending(sub: string, digest: string, now: number): Promise<string | undefined> {
      const { Item } = await client.send(
        new GetCommand({ TableName: tableName, Key: keys.totpPending(sub, digest), ConsistentRead: true }),
      );
      if (!Item || (Item.expiresAt as number) <= now) return undefined;
      return Item.secret as string;
    },

    /**
     * The pending secret becomes a generator, once: a second enrolment with the same
     * secret fails its condition. Answers false when the secret was taken meanwhile.
     */
    async enrol(sub: string, digest: string, generator: StoredGenerator, now: number): Promise<boolean> {
      try {
        await transactWrite(client, [
          {
            Delete: {
              TableName: tableName,
              Key: keys.totpPending(sub, digest),
              // Taken once and only while it lives: no enrolment from an expired or used secret.
              ConditionExpression: "attribute_exists(PK) AND expiresAt > :now",
              ExpressionAttributeValues: { ":now": now },
            },
          },
          {
            Put: {
              TableName: tableName,
              Item: itemOf(ENTITY.totpGenerator, keys.totpGenerator(sub, generator.id), generator),
              // A fresh random id; never overwrite a generator.
              ConditionExpression: "attribute_not_exists(PK)",
            },
          },
        ]);
        return true;
      } catch (error) {
        if (failedConditions(error)?.length) return false;
        throw error;
      }
    },

    async list(sub: string): Promise<StoredGenerator[]> {
      const items = await queryAll(client, {
        TableName: tableName,
        KeyConditionExpression: "PK = :pk AND begins_with(SK, :prefix)",
        ExpressionAttributeValues: { ":pk": keys.userPartition(sub), ":prefix": keys.totpPrefix },
        ConsistentRead: true,
      });
      return items.map((item) => ({
        id: item.id as string,
        name: item.name as string,
        len: item.len as number,
        secret: item.secret as string,
        lastStep: item.lastStep as number | undefined,
      }));
    },

    /** Records a used time step; false when that step or a later one was used already (replay). */
    async useStep(sub: string, id: string, step: number): Promise<boolean> {
      try {
        await client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.totpGenerator(sub, id),
            UpdateExpression: "SET lastStep = :step",
            // Two logins with one code: only the first moves the step forward.
            ConditionExpression: "attribute_exists(PK) AND (attribute_not_exists(lastStep) OR lastStep < :step)",
            ExpressionAttributeValues: { ":step": step },
          }),
        );
        return true;
      } catch (error) {
        if (isConditionalCheckFailed(error)) return false;
        throw error;
      }
    },

    async remove(sub: string, id: string): Promise<boolean> {
      try {
        await client.send(
          new DeleteCommand({
            TableName: tableName,
            Key: keys.totpGenerator(sub, id),
            // Deleting an unknown generator is a 404, not a silent success.
            ConditionExpression: "attribute_exists(PK)",
          }),
        );
        return true;
      } catch (error) {
        if (isConditionalCheckFailed(error)) return false;
        throw error;
      }
    },
  };
}
