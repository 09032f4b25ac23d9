import type { DpopReplayRepository } from "../domain/oauth/dpop";
import type { StoreDeps } from "./client";
import { putUnlessRefused } from "./conditional-put";
import { ENTITY, itemOf, keys } from "./keys";

// Conditions, named so each write says why it may fail.
/** A proof is good once (RFC 9449 11.1): a replay finds its jti taken. */
const unseen = "attribute_not_exists(PK)";

export function createDpopProofStore({ client, tableName }: StoreDeps): DpopReplayRepository {
  return {
    firstUse: (jkt, jti, expiresAt) =>
      putUnlessRefused(client, {
        TableName: tableName,
        Item: itemOf(ENTITY.dpopProof, keys.dpopProof(jkt, jti), { expiresAt }),
        ConditionExpression: unseen,
      }),
  };
}
