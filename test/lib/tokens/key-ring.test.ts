import { describe, expect, it } from "vitest";
import { services } from "../../../lib/container";
import type { SigningKeyStore } from "../../../lib/store/signing-keys";
import { createAccessTokens } from "../../../lib/tokens/access-token";
import { createKeyRing } from "../../../lib/tokens/key-ring";

/** The real key store, counting which reads the ring makes; `failFirst` fails its first public read. */
function countingStore(options: { failFirst?: boolean } = {}) {
  const store = services().signingKeys;
  const reads = { public: 0, withSecrets: 0 };
  const counted: SigningKeyStore = {
    ...store,
    listPublic: async () => {
      reads.public += 1;
      if (options.failFirst && reads.public === 1) throw new Error("DynamoDB unreachable");
      return store.listPublic();
    },
    listWithSecrets: async () => {
      reads.withSecrets += 1;
      return store.listWithSecrets();
    },
  };
  return { store: counted, reads };
}

async function someToken(): Promise<string> {
  const issuer = createAccessTokens(createKeyRing(services().signingKeys), "svc-identity");
  return (await issuer.issue({ sub: "app", clientId: "app", scopes: ["svc_groups"], ttlSeconds: 60 })).token;
}

describe("signing key ring", () => {
  it("when a container only checks tokens and publishes JWKS, it never reads a private key", async () => {
    const token = await someToken();
    const { store, reads } = countingStore();
    const ring = createKeyRing(store);
    await expect(createAccessTokens(ring, "svc-identity").verify(token)).resolves.toMatchObject({ sub: "app" });
    const { keys } = await ring.jwks();
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) expect(key).not.toHaveProperty("d");
    expect(reads).toEqual({ public: 1, withSecrets: 0 });
  });

  it("when keys were read less than a minute ago it is ready to check tokens, and not before or after", async () => {
    const { store } = countingStore();
    let now = 1_000_000;
    const ring = createKeyRing(store, () => now);
    expect(ring.ready()).toBe(false);
    ring.warm();
    // A read under way is not yet keys held.
    expect(ring.ready()).toBe(false);
    await ring.jwks();
    expect(ring.ready()).toBe(true);
    now += 59;
    expect(ring.ready()).toBe(true);
    now += 2;
    expect(ring.ready()).toBe(false);
    await ring.jwks();
    expect(ring.ready()).toBe(true);
    ring.invalidate();
    expect(ring.ready()).toBe(false);
  });

  it("when a checking container comes to sign, it reads the keys with their secrets once and keeps verifying", async () => {
    const token = await someToken();
    const { store, reads } = countingStore();
    const ring = createKeyRing(store);
    const tokens = createAccessTokens(ring, "svc-identity");
    await tokens.verify(token);
    const signed = await tokens.issue({ sub: "app", clientId: "app", scopes: ["svc_groups"], ttlSeconds: 60 });
    await tokens.issue({ sub: "app", clientId: "app", scopes: ["svc_groups"], ttlSeconds: 60 });
    await expect(tokens.verify(signed.token)).resolves.toMatchObject({ sub: "app" });
    expect(reads).toEqual({ public: 1, withSecrets: 1 });
  });

  it("when a container signs first, checking tokens needs no second read", async () => {
    const { store, reads } = countingStore();
    const tokens = createAccessTokens(createKeyRing(store), "svc-identity");
    const signed = await tokens.issue({ sub: "app", clientId: "app", scopes: ["svc_groups"], ttlSeconds: 60 });
    await expect(tokens.verify(await someToken())).resolves.toMatchObject({ sub: "app" });
    await expect(tokens.verify(signed.token)).resolves.toMatchObject({ sub: "app" });
    expect(reads).toEqual({ public: 0, withSecrets: 1 });
  });

  it("when warmed, the read it started is the one the first check uses", async () => {
    const token = await someToken();
    const { store, reads } = countingStore();
    const ring = createKeyRing(store);
    ring.warm();
    ring.warm();
    expect(reads.public).toBe(1);
    await createAccessTokens(ring, "svc-identity").verify(token);
    expect(reads).toEqual({ public: 1, withSecrets: 0 });
  });

  it("when the warm-up read fails, the first check reads again and succeeds", async () => {
    const token = await someToken();
    const { store, reads } = countingStore({ failFirst: true });
    const ring = createKeyRing(store);
    ring.warm();
    // Let the failed read settle: it must not surface as an unhandled rejection.
    await new Promise((done) => setTimeout(done, 10));
    await expect(createAccessTokens(ring, "svc-identity").verify(token)).resolves.toMatchObject({ sub: "app" });
    expect(reads.public).toBe(2);
  });
});
