import type { SigningKeyStore } from "../store/signing-keys";
import { CACHE_SECONDS, generateSigningKey, JWKS_MAX_AGE_SECONDS } from "./key-ring";

/** Clock skew allowance: a rotated key verifies this long past the last token it signed. */
const SKEW_SECONDS = 300;
/**
 * A new key signs only this long after it is published: by then every verifier that
 * honours the JWKS max-age, and every function's key cache, has reread the keys.
 */
export const ACTIVATION_DELAY_SECONDS = JWKS_MAX_AGE_SECONDS + CACHE_SECONDS + 60;

export interface Rotation {
  kid: string;
  activatesAt: number;
  retired: string[];
  retireAt: number;
}

/**
 * Publishes a new signing key and retires the live ones. Staged (the default), the new
 * key signs after ACTIVATION_DELAY_SECONDS and the old one signs until then; `now: true`
 * (emergency, e.g. a leaked key) signs with the new key at once, and verifiers holding
 * an older JWKS refuse its tokens until they reread it. A retired key stays in JWKS until
 * every token it signed has expired (access and ID tokens share accessTtlSeconds; refresh
 * tokens are opaque and unsigned), so rotation never breaks a valid token.
 */
export async function rotateSigningKeys(
  store: SigningKeyStore,
  accessTtlSeconds: number,
  options: { now?: boolean; at?: number } = {},
): Promise<Rotation> {
  const at = options.at ?? Math.floor(Date.now() / 1000);
  const live = (await store.listPublic()).filter((k) => k.retireAt === undefined);
  // The old key signs until the pending one activates; a second staged rotation would
  // make it sign past the retirement that the first one set.
  const pending = live.find((k) => (k.activatesAt ?? k.createdAt) > at);
  if (pending && !options.now) {
    const when = new Date((pending.activatesAt ?? pending.createdAt) * 1000).toISOString();
    throw new Error(`key ${pending.kid} signs from ${when}: rotate after that, or now with --now`);
  }
  const key = await generateSigningKey(at);
  // With no live key (first deploy) nothing signs meanwhile: the first key signs at once.
  const activatesAt = options.now || live.length === 0 ? at : at + ACTIVATION_DELAY_SECONDS;
  // The old keys may sign until the new one activates, and a container that read them
  // just before may keep signing with them for its cache time.
  const retireAt = activatesAt + CACHE_SECONDS + accessTtlSeconds + SKEW_SECONDS;
  const retired = live.map((k) => k.kid);
  if (!(await store.rotate({ ...key, activatesAt }, retired, retireAt))) {
    throw new Error("another rotation retired these keys at the same time; nothing was written");
  }
  return { kid: key.kid, activatesAt, retired, retireAt };
}

/**
 * The scheduled rotation: a staged rotation, unless a key published earlier has not
 * started signing yet (a rotation is already under way).
 */
export async function rotateOnSchedule(
  store: SigningKeyStore,
  accessTtlSeconds: number,
  at: number,
): Promise<Rotation | undefined> {
  const pending = (await store.listPublic()).some(
    (k) => k.retireAt === undefined && (k.activatesAt ?? k.createdAt) > at,
  );
  if (pending) return undefined;
  return rotateSigningKeys(store, accessTtlSeconds, { at });
}

/** Creates the first signing key when there is none (fresh table); it signs at once. */
export async function ensureSigningKey(store: SigningKeyStore, accessTtlSeconds: number): Promise<string | undefined> {
  const now = Math.floor(Date.now() / 1000);
  const live = (await store.listPublic()).filter((k) => k.retireAt === undefined || k.retireAt > now);
  if (live.some((k) => k.retireAt === undefined)) return undefined;
  return (await rotateSigningKeys(store, accessTtlSeconds, { now: true, at: now })).kid;
}
