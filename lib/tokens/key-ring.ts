import { randomBytes } from "node:crypto";
import { type CryptoKey, exportJWK, generateKeyPair, importJWK, type JWK } from "jose";
import type { SigningKeyStore, SigningKeyWithSecret } from "../store/signing-keys";

export const SIGNING_ALG = "ES256";

/** Signing keys change rarely; a container rereads them this often. */
export const CACHE_SECONDS = 60;
/** JWKS `cache-control: max-age`: how long verifiers may keep the published keys. */
export const JWKS_MAX_AGE_SECONDS = 300;
/**
 * JWKS rereads the keys after this long rather than CACHE_SECONDS: verifiers fetch it
 * rarely (they keep it JWKS_MAX_AGE_SECONDS), and a staged key must reach them as early
 * as it can, however long a busy container has held its keys.
 */
export const JWKS_READ_SECONDS = 5;
/** Unknown kids trigger a reread at most this often, so forged kids cannot flood storage. */
const UNKNOWN_KID_REFRESH_SECONDS = 5;

export async function generateSigningKey(now: number) {
  const { publicKey, privateKey } = await generateKeyPair(SIGNING_ALG, { extractable: true });
  const kid = randomBytes(12).toString("base64url");
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: SIGNING_ALG, use: "sig" };
  const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: SIGNING_ALG };
  return { kid, publicJwk, privateJwk, createdAt: now };
}

interface Loaded {
  at: number;
  /**
   * Only when the load read the private keys (`signingKey`): the newest key already
   * active and any published to activate later, newest first, so that a key starts
   * signing at its time without waiting for the next read.
   */
  signing?: { kid: string; key: CryptoKey; activatesAt: number }[];
  verifying: Map<string, { key: CryptoKey; retireAt?: number }>;
  jwks: JWK[];
  withSecrets: boolean;
}

/**
 * The container's view of the signing keys: the newest key past its activation signs,
 * every key not yet past its retirement verifies and is published in JWKS (a key is
 * published before it activates, so verifiers' caches hold it when its tokens arrive). Verification and JWKS
 * read the public halves only; the private keys are read, and the signing key imported,
 * the first time this container signs (the token function), never where tokens are only
 * checked.
 */
export function createKeyRing(store: SigningKeyStore, clock: () => number = () => Date.now() / 1000) {
  let loaded: Loaded | undefined;
  let loading: Promise<Loaded> | undefined;
  let lastUnknownRefresh = 0;

  const retiredRank = (r: { retireAt?: number }) => (r.retireAt === undefined ? 0 : 1);

  async function load(withSecrets: boolean): Promise<Loaded> {
    const now = clock();
    const records = withSecrets ? await store.listWithSecrets() : await store.listPublic();
    const live = records.filter((r) => r.retireAt === undefined || r.retireAt > now);
    const imported = await Promise.all(live.map((r) => importJWK(r.publicJwk, SIGNING_ALG) as Promise<CryptoKey>));
    const verifying = new Map(live.map((r, i) => [r.kid, { key: imported[i], retireAt: r.retireAt }]));
    const byActivation = live
      .map((r) => ({ record: r, activatesAt: r.activatesAt ?? r.createdAt }))
      // Two rotations within one second activate together: the one that retired the other signs.
      .sort((a, b) => b.activatesAt - a.activatesAt || retiredRank(a.record) - retiredRank(b.record));
    const firstActive = byActivation.findIndex((k) => k.activatesAt <= now);
    const candidates = firstActive < 0 ? byActivation : byActivation.slice(0, firstActive + 1);
    return {
      at: now,
      signing: withSecrets
        ? await Promise.all(
            candidates.map(async ({ record, activatesAt }) => ({
              kid: record.kid,
              key: (await importJWK((record as SigningKeyWithSecret).privateJwk, SIGNING_ALG)) as CryptoKey,
              activatesAt,
            })),
          )
        : undefined,
      verifying,
      jwks: live.map((r) => r.publicJwk),
      withSecrets,
    };
  }

  const fresh = (state: Loaded | undefined, maxAge = CACHE_SECONDS): state is Loaded =>
    state !== undefined && clock() - state.at < maxAge;

  async function current(options: { force?: boolean; withSecrets?: boolean; maxAge?: number } = {}): Promise<Loaded> {
    if (!options.force && fresh(loaded, options.maxAge) && (loaded.withSecrets || !options.withSecrets)) {
      return loaded;
    }
    // One load at a time per container, however many requests arrive together; a signing
    // load also serves verification, so a verifying caller waits for one in flight.
    const withSecrets = options.withSecrets === true || loaded?.withSecrets === true;
    const inFlight = loading;
    if (inFlight && !options.force) {
      const state = await inFlight;
      if (state.withSecrets || !withSecrets) return state;
    }
    const started = load(withSecrets).finally(() => {
      if (loading === started) loading = undefined;
    });
    loading = started;
    loaded = await started;
    return loaded;
  }

  return {
    async signingKey(): Promise<{ kid: string; key: CryptoKey }> {
      const state = await current({ withSecrets: true });
      const now = clock();
      const signing = state.signing?.find((k) => k.activatesAt <= now);
      if (!signing) throw new Error("no active signing key: run `svc-admin keys rotate --now`");
      return { kid: signing.kid, key: signing.key };
    },

    /** The verification key for a kid, or undefined when no live key has it. */
    async verificationKey(kid: string): Promise<CryptoKey | undefined> {
      let state = await current();
      if (!state.verifying.has(kid) && clock() - lastUnknownRefresh > UNKNOWN_KID_REFRESH_SECONDS) {
        lastUnknownRefresh = clock();
        state = await current({ force: true });
      }
      const entry = state.verifying.get(kid);
      if (!entry || (entry.retireAt !== undefined && entry.retireAt <= clock())) return undefined;
      return entry.key;
    },

    async jwks(): Promise<{ keys: JWK[] }> {
      return { keys: (await current({ maxAge: JWKS_READ_SECONDS })).jwks };
    },

    /**
     * Starts reading the keys when none are held, so that the read runs while the
     * request is parsed and validated; a failed read is tried again by whoever needs
     * the keys.
     */
    warm(): void {
      if (!fresh(loaded)) current().catch(() => undefined);
    },

    /** Whether a token can be checked without a read: fresh keys are held. */
    ready(): boolean {
      return fresh(loaded);
    },

    /** Forget what was read, e.g. after this process rotated the keys. */
    invalidate(): void {
      loaded = undefined;
    },
  };
}

export type KeyRing = ReturnType<typeof createKeyRing>;
