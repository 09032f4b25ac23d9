import { BatchGetCommand, type BatchGetCommandInput, type BatchGetCommandOutput } from "@aws-sdk/lib-dynamodb";
import type { PasswordHash } from "../domain/credentials/password-hash";
import type { LoginCandidates, LoginRecord } from "../domain/credentials/user-password";
import type { StoreDeps } from "./accounts";
import { keys, type TableKey } from "./keys";

const PASSWORD_FIELDS = ["alg", "N", "r", "p", "keyLength", "salt", "hash"] as const;

function passwordOf(item: Record<string, unknown> | undefined): PasswordHash | undefined {
  if (!item) return undefined;
  return Object.fromEntries(PASSWORD_FIELDS.map((f) => [f, item[f]])) as unknown as PasswordHash;
}

/** Login lookups (lib/domain/credentials/user-password.ts). */
export function createCredentialStore({ client, tableName }: StoreDeps) {
  /** Strongly consistent BatchGetItem, repeated for keys DynamoDB left unprocessed. */
  async function getMany(wanted: TableKey[]): Promise<Map<string, Record<string, unknown>>> {
    const found = new Map<string, Record<string, unknown>>();
    let request: BatchGetCommandInput["RequestItems"] = {
      [tableName]: { Keys: wanted, ConsistentRead: true },
    };
    for (let attempt = 0; request && Object.keys(request).length > 0 && attempt < 5; attempt++) {
      const page: BatchGetCommandOutput = await client.send(new BatchGetCommand({ RequestItems: request }));
      for (const item of page.Responses?.[tableName] ?? []) found.set(`${item.PK}|${item.SK}`, item);
      request = page.UnprocessedKeys;
    }
    return found;
  }

  const at = (items: Map<string, Record<string, unknown>>, key: TableKey) => items.get(`${key.PK}|${key.SK}`);

  function recordOf(items: Map<string, Record<string, unknown>>, sub: string): LoginRecord | undefined {
    const profile = at(items, keys.userProfile(sub));
    if (!profile) return undefined;
    const password = passwordOf(at(items, keys.passwordCredential(sub)));
    return { sub, locked: profile.locked === true, ...(password && { password }) };
  }

  return {
    /**
     * One round trip reads the profile and password of the login taken as a sub, and
     * the e-mail and phone claims; a second one, only when a claim matched, reads the
     * claim owner's profile and password.
     */
    async findLogin(candidates: LoginCandidates): Promise<LoginRecord | undefined> {
      const wanted: TableKey[] = [];
      if (candidates.sub) wanted.push(keys.userProfile(candidates.sub), keys.passwordCredential(candidates.sub));
      if (candidates.email) wanted.push(keys.uniqueEmail(candidates.email));
      if (candidates.phone) wanted.push(keys.uniquePhone(candidates.phone));
      if (wanted.length === 0) return undefined;
      const first = await getMany(wanted);
      const bySub = candidates.sub ? recordOf(first, candidates.sub) : undefined;
      if (bySub) return bySub;
      const claim =
        (candidates.email && at(first, keys.uniqueEmail(candidates.email))) ||
        (candidates.phone && at(first, keys.uniquePhone(candidates.phone)));
      if (!claim) return undefined;
      const owner = claim.owner as string;
      return recordOf(await getMany([keys.userProfile(owner), keys.passwordCredential(owner)]), owner);
    },
  };
}

export type CredentialStore = ReturnType<typeof createCredentialStore>;
