import { randomBytes } from "node:crypto";
import { type CryptoKey, exportJWK, generateKeyPair, importJWK, type JWK } from "jose";
import type { SigningKeyStore } from "../store/signing-keys";

export const SIGNING_ALG = "ES256";

/** Signing keys change rarely; a container rereads them this often. */
const CACHE_SECONDS = 60;
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
  signing?: { kid: string; key: CryptoKey };
  verifying: Map<string, { key: CryptoKey; retireAt?: number }>;
  jwks: JWK[];
}

/**
 * The container's view of the signing keys: the newest active key signs, every key
 * not yet past its retirement verifies and is published in JWKS.
 */
export function createKeyRing(store: SigningKeyStore, clock: () => number = () => Date.now() / 1000) {
  let loaded: Loaded | undefined;
  let loading: Promise<Loaded> | undefined;
  let lastUnknownRefresh = 0;

  async function load(): Promise<Loaded> {
    const now = clock();
    const records = await store.listWithSecrets();
    const live = records.filter((r) => r.retireAt === undefined || r.retireAt > now);
    const verifying = new Map<string, { key: CryptoKey; retireAt?: number }>();
    for (const record of live) {
      verifying.set(record.kid, {
        key: (await importJWK(record.publicJwk, SIGNING_ALG)) as CryptoKey,
        retireAt: record.retireAt,
      });
    }
    const active = live.filter((r) => r.retireAt === undefined).sort((a, b) => b.createdAt - a.createdAt)[0];
    return {
      at: now,
      signing: active && { kid: active.kid, key: (await importJWK(active.privateJwk, SIGNING_ALG)) as CryptoKey },
      verifying,
      jwks: live.map((r) => r.publicJwk),
    };
  }

  async function current(force = false): Promise<Loaded> {
    if (!force && loaded && clock() - loaded.at < CACHE_SECONDS) return loaded;
    // One load at a time per container, however many requests arrive together.
    loading ??= load().finally(() => {
      loading = undefined;
    });
    loaded = await loading;
    return loaded;
  }

  return {
    async signingKey(): Promise<{ kid: string; key: CryptoKey }> {
      const state = await current();
      if (!state.signing) throw new Error("no active signing key: run `svc-admin keys rotate`");
      return state.signing;
    },

    /** The verification key for a kid, or undefined when no live key has it. */
    async verificationKey(kid: string): Promise<CryptoKey | undefined> {
      let state = await current();
      if (!state.verifying.has(kid) && clock() - lastUnknownRefresh > UNKNOWN_KID_REFRESH_SECONDS) {
        lastUnknownRefresh = clock();
        state = await current(true);
      }
      const entry = state.verifying.get(kid);
      if (!entry || (entry.retireAt !== undefined && entry.retireAt <= clock())) return undefined;
      return entry.key;
    },

    async jwks(): Promise<{ keys: JWK[] }> {
      return { keys: (await current()).jwks };
    },

    /** Forget what was read, e.g. after this process rotated the keys. */
    invalidate(): void {
      loaded = undefined;
    },
  };
}

export type KeyRing = ReturnType<typeof createKeyRing>;
