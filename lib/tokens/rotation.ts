import type { SigningKeyStore } from "../store/signing-keys";
import { generateSigningKey } from "./key-ring";

/** Clock skew allowance: a rotated key verifies this long past the last token it signed. */
const SKEW_SECONDS = 300;

/**
 * Adds a new signing key and retires the active ones. A retired key stays in JWKS
 * until every token it signed has expired, so rotation never breaks a valid token.
 */
export async function rotateSigningKeys(
  store: SigningKeyStore,
  accessTtlSeconds: number,
): Promise<{ kid: string; retired: string[] }> {
  const now = Math.floor(Date.now() / 1000);
  const active = (await store.listPublic()).filter((k) => k.retireAt === undefined);
  const key = await generateSigningKey(now);
  await store.add(key);
  // Containers cache keys for a minute: the old key may still sign for that long.
  const retireAt = now + accessTtlSeconds + SKEW_SECONDS + 60;
  for (const old of active) await store.retire(old.kid, retireAt);
  return { kid: key.kid, retired: active.map((k) => k.kid) };
}

/** Creates the first signing key when there is none (fresh table). */
export async function ensureSigningKey(store: SigningKeyStore, accessTtlSeconds: number): Promise<string | undefined> {
  const now = Math.floor(Date.now() / 1000);
  const live = (await store.listPublic()).filter((k) => k.retireAt === undefined || k.retireAt > now);
  if (live.some((k) => k.retireAt === undefined)) return undefined;
  return (await rotateSigningKeys(store, accessTtlSeconds)).kid;
}
