import { randomBytes } from "node:crypto";
import { type CryptoKey, exportJWK, generateKeyPair, importJWK, type JWK } from "jose";
import type { SigningKeyRecord, SigningKeyStore, SigningKeyWithSecret } from "../store/signing-keys";

/** Access tokens are ES256 (RFC 9068 leaves the choice to us; verification pins it). */
export const ACCESS_TOKEN_ALG = "ES256";
/** ID tokens: RS256 unless the client registered ES256 (OIDC Core 15.1 makes RS256 mandatory). */
export const SIGNING_ALGS = ["RS256", "ES256"] as const;
export type SigningAlg = (typeof SIGNING_ALGS)[number];

/** Keys stored before RS256 existed carry ES256 in their JWK. */
export const algOf = (record: Pick<SigningKeyRecord, "publicJwk">): SigningAlg =>
  record.publicJwk.alg === "RS256" ? "RS256" : "ES256";

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

export async function generateSigningKey(alg: SigningAlg, now: number) {
  // 2048 bits: the size NIST SP 800-57 accepts through 2030 and every RP library verifies.
  const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true, modulusLength: 2048 });
  const kid = randomBytes(12).toString("base64url");
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg, use: "sig" };
  const privateJwk = { ...(await exportJWK(privateKey)), kid, alg };
  return { kid, publicJwk, privateJwk, createdAt: now };
}

interface Candidate {
  record: SigningKeyRecord;
  activatesAt: number;
}

interface Loaded {
  at: number;
  /**
   * Only when the load read the private keys (`signingKey`), per algorithm: the newest
   * key already active and any published to activate later, newest first, so that a key
   * starts signing at its time without waiting for the next read.
   */
  signing?: Map<SigningAlg, Candidate[]>;
  verifying: Map<string, SigningKeyRecord>;
  jwks: JWK[];
  withSecrets: boolean;
}

/**
 * The container's view of the signing keys: per algorithm, the newest key past its
 * activation signs; every key not yet past its retirement verifies and is published in
 * JWKS (a key is published before it activates, so verifiers' caches hold it when its
 * tokens arrive). Verification and JWKS read the public halves only; the private keys
 * are read the first time this container signs (the token function), never where tokens
 * are only checked. A key is imported when first used, so a function that only checks
 * access tokens never imports the RSA keys.
 */
export function createKeyRing(store: SigningKeyStore, clock: () => number = () => Date.now() / 1000) {
  let loaded: Loaded | undefined;
  let loading: Promise<Loaded> | undefined;
  let lastUnknownRefresh = 0;
  // By kid: a kid names one key pair for good, so an import outlives the read that found it.
  const imported = new Map<string, Promise<CryptoKey>>();

  function importOnce(id: string, jwk: JWK, alg: SigningAlg): Promise<CryptoKey> {
    let key = imported.get(id);
    if (!key) {
      key = (importJWK(jwk, alg) as Promise<CryptoKey>).catch((error) => {
        imported.delete(id);
        throw error;
      });
      imported.set(id, key);
    }
    return key;
  }

  const retiredRank = (r: { retireAt?: number }) => (r.retireAt === undefined ? 0 : 1);

  function signingCandidates(live: SigningKeyRecord[], now: number): Map<SigningAlg, Candidate[]> {
    const byAlg = new Map<SigningAlg, Candidate[]>();
    for (const alg of SIGNING_ALGS) {
      const byActivation = live
        .filter((r) => algOf(r) === alg)
        .map((record) => ({ record, activatesAt: record.activatesAt ?? record.createdAt }))
        // Two rotations within one second activate together: the one that retired the other signs.
        .sort((a, b) => b.activatesAt - a.activatesAt || retiredRank(a.record) - retiredRank(b.record));
      const firstActive = byActivation.findIndex((k) => k.activatesAt <= now);
      byAlg.set(alg, firstActive < 0 ? byActivation : byActivation.slice(0, firstActive + 1));
    }
    return byAlg;
  }

  async function load(withSecrets: boolean): Promise<Loaded> {
    const now = clock();
    const records = withSecrets ? await store.listWithSecrets() : await store.listPublic();
    const live = records.filter((r) => r.retireAt === undefined || r.retireAt > now);
    return {
      at: now,
      signing: withSecrets ? signingCandidates(live, now) : undefined,
      verifying: new Map(live.map((r) => [r.kid, r])),
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
    /** The key that signs with `alg` now; access tokens use ACCESS_TOKEN_ALG. */
    async signingKey(alg: SigningAlg = ACCESS_TOKEN_ALG): Promise<{ kid: string; key: CryptoKey; alg: SigningAlg }> {
      const state = await current({ withSecrets: true });
      const now = clock();
      const signing = state.signing?.get(alg)?.find((k) => k.activatesAt <= now);
      if (!signing) throw new NoSigningKeyError(alg);
      const { kid, privateJwk } = signing.record as SigningKeyWithSecret;
      return { kid, key: await importOnce(`${kid}.private`, privateJwk, alg), alg };
    },

    /**
     * The verification key for a kid, or undefined when no live key has it or its
     * algorithm is not `alg` (the token's header, which jose then pins).
     */
    async verificationKey(kid: string, alg: string): Promise<CryptoKey | undefined> {
      let state = await current();
      if (!state.verifying.has(kid) && clock() - lastUnknownRefresh > UNKNOWN_KID_REFRESH_SECONDS) {
        lastUnknownRefresh = clock();
        state = await current({ force: true });
      }
      const record = state.verifying.get(kid);
      if (!record || (record.retireAt !== undefined && record.retireAt <= clock())) return undefined;
      if (algOf(record) !== alg) return undefined;
      return importOnce(kid, record.publicJwk, alg);
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

/** No key of this algorithm is live: a deployment from before it had none. */
export class NoSigningKeyError extends Error {
  constructor(readonly alg: SigningAlg) {
    super(`no active ${alg} signing key: run \`svc-admin keys rotate --now\``);
  }
}
