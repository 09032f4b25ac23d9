import {
  ConcurrentRotationError,
  type KeyRotation,
  RotationUnderWayError,
  type SigningKeyRotator,
} from "../domain/keys/ports";
import type { PendingWrite } from "../domain/unit-of-work";
import type { SigningKeyStore } from "../store/signing-keys";
import {
  algOf,
  CACHE_SECONDS,
  generateSigningKey,
  JWKS_MAX_AGE_SECONDS,
  SIGNING_ALGS,
  type SigningAlg,
} from "./key-ring";

/** Clock skew allowance: a rotated key verifies this long past the last token it signed. */
const SKEW_SECONDS = 300;
/**
 * A new key signs only this long after it is published: by then every verifier that
 * honours the JWKS max-age, and every function's key cache, has reread the keys.
 */
export const ACTIVATION_DELAY_SECONDS = JWKS_MAX_AGE_SECONDS + CACHE_SECONDS + 60;

export interface Rotation extends KeyRotation {
  /** One new key per algorithm. */
  keys: { alg: SigningAlg; kid: string; activatesAt: number }[];
}

/**
 * Publishes a new signing key per algorithm and retires the live ones, all in one
 * transaction. Staged (the default), the new keys sign after ACTIVATION_DELAY_SECONDS and
 * the old ones sign until then; `now: true` (emergency, e.g. a leaked key) signs with the
 * new keys at once, and verifiers holding an older JWKS refuse their tokens until they
 * reread it. A retired key stays in JWKS until every token it signed has expired (access
 * and ID tokens share accessTtlSeconds; refresh tokens are opaque and unsigned), so
 * rotation never breaks a valid token. `algs` limits it to the algorithms named.
 */
export async function rotateSigningKeys(
  store: SigningKeyStore,
  accessTtlSeconds: number,
  options: {
    now?: boolean;
    at?: number;
    algs?: readonly SigningAlg[];
    /** Writes that commit with the rotation (its security event). */
    alsoWrite?: (rotation: KeyRotation) => PendingWrite[];
  } = {},
): Promise<Rotation> {
  const at = options.at ?? Math.floor(Date.now() / 1000);
  const algs = options.algs ?? SIGNING_ALGS;
  const live = (await store.listPublic()).filter((k) => k.retireAt === undefined && algs.includes(algOf(k)));
  // The old key signs until the pending one activates; a second staged rotation would
  // make it sign past the retirement that the first one set.
  const pending = live.find((k) => (k.activatesAt ?? k.createdAt) > at);
  if (pending && !options.now) throw new RotationUnderWayError(pending.kid, pending.activatesAt ?? pending.createdAt);
  const keys = await Promise.all(
    algs.map(async (alg) => {
      const key = await generateSigningKey(alg, at);
      // With no live key of its algorithm (first deploy, or RS256 added to an older
      // deployment) nothing signs meanwhile: the key signs at once.
      const first = !live.some((k) => algOf(k) === alg);
      return { ...key, alg, activatesAt: options.now || first ? at : at + ACTIVATION_DELAY_SECONDS };
    }),
  );
  // The old keys may sign until the new ones activate, and a container that read them
  // just before may keep signing with them for its cache time.
  const retireAt = Math.max(...keys.map((k) => k.activatesAt)) + CACHE_SECONDS + accessTtlSeconds + SKEW_SECONDS;
  const rotation = {
    keys: keys.map(({ alg, kid, activatesAt }) => ({ alg, kid, activatesAt })),
    retired: live.map((k) => k.kid),
    retireAt,
  };
  const retiring = live.map((k) => ({ kid: k.kid, signed: (k.activatesAt ?? k.createdAt) <= at }));
  if (!(await store.rotate(keys, retiring, retireAt, options.alsoWrite?.(rotation) ?? []))) {
    throw new ConcurrentRotationError();
  }
  return rotation;
}

/** The domain's port over the stored keys: what `svc-admin keys rotate` and the admin API rotate with. */
export function createKeyRotator(store: SigningKeyStore, accessTtlSeconds: number): SigningKeyRotator {
  return {
    list: async () =>
      (await store.listPublic()).map((key) => ({
        kid: key.kid,
        alg: algOf(key),
        use: key.publicJwk.use ?? "sig",
        createdAt: key.createdAt,
        activatesAt: key.activatesAt ?? key.createdAt,
        ...(key.retireAt !== undefined && { retireAt: key.retireAt }),
      })),
    rotate: (now, alsoWrite) => rotateSigningKeys(store, accessTtlSeconds, { now, alsoWrite }),
  };
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

/**
 * Creates a signing key for each algorithm that has none (a fresh table, or a table from
 * before RS256); each signs at once. The kids created, none when every algorithm had one.
 */
export async function ensureSigningKeys(store: SigningKeyStore, accessTtlSeconds: number): Promise<string[]> {
  const now = Math.floor(Date.now() / 1000);
  const active = (await store.listPublic()).filter((k) => k.retireAt === undefined);
  const missing = SIGNING_ALGS.filter((alg) => !active.some((k) => algOf(k) === alg));
  if (missing.length === 0) return [];
  return (await rotateSigningKeys(store, accessTtlSeconds, { now: true, at: now, algs: missing })).keys.map(
    (k) => k.kid,
  );
}
