import { PutCommand } from "@aws-sdk/lib-dynamodb";
import { config } from "../../lib/config";
import { documentClient } from "../../lib/document-client";
import type { StoredPasskey } from "../../lib/domain/passkeys/ports";
import { ENTITY, itemOf, keys } from "../../lib/store/keys";

/**
 * A passkey as stored before credential id claims existed (commit 423e7a1): the passkey item
 * alone, with no UNIQUE#passkey# claim. Its key is a placeholder: it never signs in.
 */
export async function seedUnclaimedPasskey(sub: string, id: string): Promise<void> {
  const passkey: StoredPasskey = {
    id,
    publicKey: "AA",
    counter: 0,
    transports: ["internal"],
    backedUp: true,
    deviceType: "multiDevice",
    name: "Old passkey",
    createdAt: Math.floor(Date.now() / 1000),
  };
  await documentClient().send(
    new PutCommand({ TableName: config().tableName, Item: itemOf(ENTITY.passkey, keys.passkey(sub, id), passkey) }),
  );
}
