import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from "jose";
import { describe, expect, it } from "vitest";
import { config } from "../../../lib/config";
import { services } from "../../../lib/container";
import { documentClient } from "../../../lib/document-client";
import { keys } from "../../../lib/store/keys";
import type { SigningKeyStore } from "../../../lib/store/signing-keys";
import { createAccessTokens, issueIdToken } from "../../../lib/tokens/access-token";
import {
  algOf,
  CACHE_SECONDS,
  createKeyRing,
  JWKS_MAX_AGE_SECONDS,
  NoSigningKeyError,
  type SigningAlg,
} from "../../../lib/tokens/key-ring";
import {
  ACTIVATION_DELAY_SECONDS,
  ensureSigningKeys,
  type Rotation,
  rotateOnSchedule,
  rotateSigningKeys,
} from "../../../lib/tokens/rotation";

const ISSUER = "svc-identity";
const claims = { sub: "app", clientId: "app", scopes: ["svc_groups"], ttlSeconds: 60 };
const kidOf = (token: string) => decodeProtectedHeader(token).kid;
/** The rotation's new access-token (ES256) key. */
const accessKey = (rotation: Rotation) => rotation.keys.find((k) => k.alg === "ES256") ?? expect.fail("no ES256 key");

const idToken = { sub: "u1", clientId: "app", sid: "s1", uaId: "d1", authTime: 1, ttlSeconds: 60 };

/** Retires every live key of `alg` as of `at`, as a table from before that algorithm would hold none. */
async function retireEvery(store: SigningKeyStore, alg: SigningAlg, at: number) {
  for (const key of await store.listPublic()) {
    if (algOf(key) !== alg || (key.retireAt !== undefined && key.retireAt <= at)) continue;
    await documentClient().send(
      new UpdateCommand({
        TableName: config().tableName,
        Key: keys.signingKey(key.kid),
        UpdateExpression: "SET retireAt = :at",
        ExpressionAttributeValues: { ":at": at },
      }),
    );
  }
}

/** A JWKS endpoint answering as the service would at the time `at()` returns. */
async function jwksEndpoint(at: () => number) {
  const server = createServer(async (_request, response) => {
    const body = JSON.stringify(await createKeyRing(services().signingKeys, at).jwks());
    response.writeHead(200, {
      "content-type": "application/json",
      "cache-control": `public, max-age=${JWKS_MAX_AGE_SECONDS}`,
    });
    response.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`);
  return { url, close: () => new Promise((resolve) => server.close(resolve)) };
}

describe("signing key rotation", () => {
  it("when a verifier cached the JWKS just before a staged rotation, it accepts every token issued afterwards", async () => {
    const { signingKeys } = services();
    const ttl = config().settings.tokens.accessTtlSeconds;
    const t0 = Math.floor(Date.now() / 1000);
    let servedAt = t0;
    const endpoint = await jwksEndpoint(() => servedAt);
    try {
      // A function container that read the keys just before the rotation, on its own clock.
      let containerAt = t0;
      const container = createAccessTokens(
        createKeyRing(signingKeys, () => containerAt),
        ISSUER,
      );
      const before = await container.issue(claims);
      // As integrators use it, but never rereading within the max-age, not even for an
      // unknown kid: the longest the published max-age lets a verifier keep the keys.
      const cached = createRemoteJWKSet(endpoint.url, {
        cacheMaxAge: JWKS_MAX_AGE_SECONDS * 1000,
        cooldownDuration: JWKS_MAX_AGE_SECONDS * 1000,
      });
      await jwtVerify(before.token, cached);

      const rotation = await rotateSigningKeys(signingKeys, ttl, { at: t0 });
      expect(rotation.retired).toContain(kidOf(before.token));
      expect(accessKey(rotation).activatesAt).toBe(t0 + ACTIVATION_DELAY_SECONDS);

      // Until the new key activates, the container and any container started since
      // sign with the key the verifier holds.
      for (const offset of [
        0,
        CACHE_SECONDS - 1,
        CACHE_SECONDS + 1,
        JWKS_MAX_AGE_SECONDS,
        ACTIVATION_DELAY_SECONDS - 1,
      ]) {
        containerAt = t0 + offset;
        const fromContainer = await container.issue(claims);
        const fresh = await createAccessTokens(
          createKeyRing(signingKeys, () => t0 + offset),
          ISSUER,
        ).issue(claims);
        for (const { token } of [fromContainer, fresh]) {
          expect(kidOf(token), `signed at +${offset} s`).toBe(kidOf(before.token));
          await expect(jwtVerify(token, cached)).resolves.toBeDefined();
        }
      }

      // From its activation the new key signs; by then the max-age has passed and every
      // verifier reread a JWKS published after the rotation, which lists the new key.
      containerAt = accessKey(rotation).activatesAt;
      const after = await container.issue(claims);
      expect(kidOf(after.token)).toBe(accessKey(rotation).kid);
      servedAt = t0 + JWKS_MAX_AGE_SECONDS;
      const reread = createRemoteJWKSet(endpoint.url, { cooldownDuration: JWKS_MAX_AGE_SECONDS * 1000 });
      await expect(jwtVerify(after.token, reread)).resolves.toBeDefined();
      await expect(jwtVerify(before.token, reread)).resolves.toBeDefined();

      // An emergency rotation signs at once: the verifier holding the older JWKS refuses.
      const emergency = await rotateSigningKeys(signingKeys, ttl, { now: true });
      const leaked = await createAccessTokens(createKeyRing(signingKeys), ISSUER).issue(claims);
      expect(kidOf(leaked.token)).toBe(accessKey(emergency).kid);
      await expect(jwtVerify(leaked.token, cached)).rejects.toMatchObject({ code: "ERR_JWKS_NO_MATCHING_KEY" });
    } finally {
      await endpoint.close();
    }
  });

  it("when emergency rotations land within one second, the key of the last one signs", async () => {
    const { signingKeys } = services();
    const at = Math.floor(Date.now() / 1000);
    // Several, so the store's order of keys that activate together cannot pick the last by chance.
    let second = await rotateSigningKeys(signingKeys, 60, { now: true, at });
    for (let i = 0; i < 4; i++) {
      const first = second;
      second = await rotateSigningKeys(signingKeys, 60, { now: true, at });
      expect(second.retired).toContain(accessKey(first).kid);
    }
    const token = await createAccessTokens(
      createKeyRing(signingKeys, () => at),
      ISSUER,
    ).issue(claims);
    expect(kidOf(token.token)).toBe(accessKey(second).kid);
  });

  it("when keys rotate, tokens of the old key keep verifying until the last one it signed has expired", async () => {
    const { signingKeys } = services();
    // No key waiting to activate: an emergency rotation retires any.
    await rotateSigningKeys(signingKeys, 60, { now: true });
    const ttl = config().settings.tokens.accessTtlSeconds;
    const t0 = Math.floor(Date.now() / 1000);
    const old = await createAccessTokens(
      createKeyRing(signingKeys, () => t0),
      ISSUER,
    ).issue({
      ...claims,
      ttlSeconds: ttl,
    });
    const oldKid = kidOf(old.token);
    const rotation = await rotateSigningKeys(signingKeys, ttl, { at: t0 });

    // The old key may sign until the new one activates, plus a container's cache time.
    const lastExpiry = accessKey(rotation).activatesAt + CACHE_SECONDS + ttl;
    let servedAt = t0 + ttl - 1;
    const endpoint = await jwksEndpoint(() => servedAt);
    try {
      const verifier = () => createRemoteJWKSet(endpoint.url);
      await expect(
        jwtVerify(old.token, verifier(), { currentDate: new Date((t0 + ttl - 1) * 1000) }),
      ).resolves.toBeDefined();
      for (const at of [t0 + ttl - 1, lastExpiry]) {
        const published = (await createKeyRing(signingKeys, () => at).jwks()).keys.map((k) => k.kid);
        expect(published).toEqual(expect.arrayContaining([oldKid, accessKey(rotation).kid]));
      }
      // Verification inside the service, seen from just before the expiry of `old`.
      const service = createAccessTokens(
        createKeyRing(signingKeys, () => t0 + ttl - 1),
        ISSUER,
      );
      await expect(service.verify(old.token)).resolves.toMatchObject({ sub: "app" });

      servedAt = rotation.retireAt + 1;
      const published = (await createKeyRing(signingKeys, () => servedAt).jwks()).keys.map((k) => k.kid);
      expect(published).not.toContain(oldKid);
      expect(published).toContain(accessKey(rotation).kid);
    } finally {
      await endpoint.close();
    }
  });

  it("when a retired key's time has passed, it leaves JWKS and its tokens are refused", async () => {
    const { signingKeys } = services();
    await rotateSigningKeys(signingKeys, 60, { now: true });
    const ring = createKeyRing(signingKeys);
    const tokens = createAccessTokens(ring, ISSUER);
    const issued = await tokens.issue(claims);
    await rotateSigningKeys(signingKeys, 60);
    const kid = kidOf(issued.token);
    const retireAt = (await signingKeys.listPublic()).find((k) => k.kid === kid)?.retireAt ?? Number.NaN;
    // Seen from a clock past the retirement of the key that signed `issued`.
    const future = createKeyRing(signingKeys, () => retireAt + 1);
    const later = createAccessTokens(future, ISSUER);
    expect((await future.jwks()).keys.map((k) => k.kid)).not.toContain(kid);
    await expect(later.verify(issued.token)).rejects.toMatchObject({ error: "bad_access_token" });
  });

  it("when the schedule runs while a published key has not started signing, it does not rotate again", async () => {
    const { signingKeys } = services();
    // No key waiting to activate: an emergency rotation retires any.
    await rotateSigningKeys(signingKeys, 60, { now: true });
    const t0 = Math.floor(Date.now() / 1000);
    const first = await rotateOnSchedule(signingKeys, 60, t0);
    expect(first?.keys.map((k) => k.activatesAt)).toEqual([
      t0 + ACTIVATION_DELAY_SECONDS,
      t0 + ACTIVATION_DELAY_SECONDS,
    ]);
    await expect(rotateOnSchedule(signingKeys, 60, t0 + 1)).resolves.toBeUndefined();
    await expect(rotateSigningKeys(signingKeys, 60, { at: t0 + 1 })).rejects.toThrow(/signs from .* --now/);
    const next = await rotateOnSchedule(signingKeys, 60, t0 + ACTIVATION_DELAY_SECONDS);
    expect(next?.retired).toEqual(expect.arrayContaining(first?.keys.map((k) => k.kid) ?? ["none"]));
  });

  it("when the jobs function runs the key-rotation job, it publishes a key that signs after the delay", async () => {
    const { signingKeys } = services();
    await rotateSigningKeys(signingKeys, 60, { now: true });
    const { handler } = await import("../../../functions/jobs");
    const result = await handler({ job: "key-rotation" });
    if (result.job !== "key-rotation") expect.fail("another job ran");
    expect(result.keys.map((k) => k.alg).sort()).toEqual(["ES256", "RS256"]);
    for (const key of result.keys) {
      const stored = (await signingKeys.listPublic()).find((k) => k.kid === key.kid);
      expect(stored?.publicJwk.alg).toBe(key.alg);
      expect((stored?.activatesAt ?? 0) - Date.now() / 1000).toBeGreaterThan(JWKS_MAX_AGE_SECONDS + CACHE_SECONDS);
    }
  });

  it("when an algorithm has no key yet (first deploy, or RS256 added to an ES256-only table), its key signs at once", async () => {
    const { signingKeys } = services();
    await rotateSigningKeys(signingKeys, 60, { now: true });
    // The table of a deployment from before RS256: no RS256 key is live.
    const now = Math.floor(Date.now() / 1000);
    await retireEvery(signingKeys, "RS256", now - 1);
    const ring = createKeyRing(signingKeys);
    await expect(ring.signingKey("RS256")).rejects.toBeInstanceOf(NoSigningKeyError);
    // ID tokens go on as before, ES256, until the key is added.
    const fallback = await issueIdToken(ring, ISSUER, idToken);
    expect(decodeProtectedHeader(fallback).alg).toBe("ES256");

    const esBefore = (await signingKeys.listPublic()).filter((k) => k.retireAt === undefined && algOf(k) === "ES256");
    const added = await ensureSigningKeys(signingKeys, 60);
    expect(added).toHaveLength(1);
    // The ES256 key is left as it was; the RS256 key signs at once.
    const after = await signingKeys.listPublic();
    expect(after.filter((k) => k.retireAt === undefined && algOf(k) === "ES256")).toEqual(esBefore);
    expect(after.find((k) => k.kid === added[0])?.publicJwk).toMatchObject({ alg: "RS256", kty: "RSA", use: "sig" });
    const fresh = createKeyRing(signingKeys);
    expect((await fresh.signingKey("RS256")).kid).toBe(added[0]);
    const signed = await issueIdToken(fresh, ISSUER, idToken);
    expect(decodeProtectedHeader(signed)).toMatchObject({ alg: "RS256", kid: added[0] });
    await expect(ensureSigningKeys(signingKeys, 60)).resolves.toEqual([]);

    // A staged rotation of such a table would leave ID tokens unsigned meanwhile: the
    // algorithm without a live key gets a key that signs at once, the other waits.
    await retireEvery(signingKeys, "RS256", now - 1);
    const t0 = Math.floor(Date.now() / 1000);
    const staged = await rotateSigningKeys(signingKeys, 60, { at: t0 });
    expect(Object.fromEntries(staged.keys.map((k) => [k.alg, k.activatesAt]))).toEqual({
      ES256: t0 + ACTIVATION_DELAY_SECONDS,
      RS256: t0,
    });
  });

  it("when two rotations race, one of them writes and the other writes nothing", async () => {
    const { signingKeys } = services();
    const results = await Promise.allSettled([
      rotateSigningKeys(signingKeys, 60, { now: true }),
      rotateSigningKeys(signingKeys, 60, { now: true }),
    ]);
    const done = results.filter((r) => r.status === "fulfilled");
    expect(done.length).toBeGreaterThanOrEqual(1);
    const kids = new Set((await signingKeys.listPublic()).map((k) => k.kid));
    for (const r of results) {
      if (r.status === "fulfilled") for (const key of r.value.keys) expect(kids).toContain(key.kid);
      else expect(String(r.reason)).toContain("nothing was written");
    }
    // One key per algorithm is left active.
    const active = (await signingKeys.listPublic()).filter((k) => k.retireAt === undefined);
    expect(active.map(algOf).sort()).toEqual(["ES256", "RS256"]);
  });
});
