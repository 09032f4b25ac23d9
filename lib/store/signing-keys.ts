import type { JWK } from "jose";
import type { PendingWrite } from "../domain/unit-of-work";
import type { StoreDeps } from "./client";
import { ENTITY, itemOf, keys } from "./keys";
import { queryAll } from "./paging";
import { transactItems } from "./pending-writes";
import { transactUnlessRefused } from "./transact";

export interface SigningKeyRecord {
  kid: string;
  publicJwk: JWK;
  createdAt: number;
  /** When the key starts signing; published before, so that caches hold it by then. Absent: `createdAt`. */
  activatesAt?: number;
  /** Set once rotated out: the key stops signing and leaves JWKS after this time. */
  retireAt?: number;
}

export interface SigningKeyWithSecret extends SigningKeyRecord {
  privateJwk: JWK;
}

/** Signing keys. The private half is read only by `listWithSecrets`. */
export function createSigningKeyStore({ client, tableName }: StoreDeps) {
  function query(withSecrets: boolean): Promise<Record<string, unknown>[]> {
    return queryAll(client, {
      TableName: tableName,
      KeyConditionExpression: "PK = :pk",
      ExpressionAttributeValues: { ":pk": keys.signingKeysPartition },
      ProjectionExpression: withSecrets ? undefined : "kid, publicJwk, createdAt, activatesAt, retireAt",
      ConsistentRead: true,
    });
  }

  return {
    async listPublic(): Promise<SigningKeyRecord[]> {
      return (await query(false)).map((item) => ({
        kid: item.kid as string,
        publicJwk: item.publicJwk as JWK,
        createdAt: item.createdAt as number,
        activatesAt: item.activatesAt as number | undefined,
        retireAt: item.retireAt as number | undefined,
      }));
    },

    async listWithSecrets(): Promise<SigningKeyWithSecret[]> {
      return (await query(true)).map((item) => ({
        kid: item.kid as string,
        publicJwk: item.publicJwk as JWK,
        privateJwk: item.privateJwk as JWK,
        createdAt: item.createdAt as number,
        activatesAt: item.activatesAt as number | undefined,
        retireAt: item.retireAt as number | undefined,
      }));
    },

    /**
     * Adds the next keys and retires the given ones in one transaction. False when one of
     * them was retired meanwhile (a concurrent rotation): nothing is written. `alsoWrite`
     * (the rotation's security event) commits with them.
     */
    async rotate(
      added: SigningKeyWithSecret[],
      retiring: { kid: string; signed: boolean }[],
      retireAt: number,
      alsoWrite: PendingWrite[] = [],
    ): Promise<boolean> {
      return transactUnlessRefused(client, [
        ...added.map((key) => ({
          Put: {
            TableName: tableName,
            Item: itemOf(ENTITY.signingKey, keys.signingKey(key.kid), key),
            // kids are random; a collision must fail rather than replace a live key.
            ConditionExpression: "attribute_not_exists(PK)",
          },
        })),
        ...retiring.map(({ kid, signed }) => ({
          Update: {
            TableName: tableName,
            Key: keys.signingKey(kid),
            // TTL removes the item a day after it leaves JWKS. A key retired before it signed
            // (an emergency rotation during a staged one) never signs: it activates as it leaves.
            UpdateExpression: `SET retireAt = :at, expiresAt = :gone${signed ? "" : ", activatesAt = :at"}`,
            // Only a key that is still active is retired; an earlier retirement stands.
            ConditionExpression: "attribute_exists(PK) AND attribute_not_exists(retireAt)",
            ExpressionAttributeValues: { ":at": retireAt, ":gone": retireAt + 86400 },
          },
        })),
        ...transactItems(alsoWrite),
      ]);
    },
  };
}

export type SigningKeyStore = ReturnType<typeof createSigningKeyStore>;
