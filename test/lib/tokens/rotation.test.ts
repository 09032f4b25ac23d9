import { decodeProtectedHeader } from "jose";
import { describe, expect, it } from "vitest";
import { config } from "../../../lib/config";
import { services } from "../../../lib/container";
import { createAccessTokens } from "../../../lib/tokens/access-token";
import { createKeyRing } from "../../../lib/tokens/key-ring";
import { rotateSigningKeys } from "../../../lib/tokens/rotation";

describe("signing key rotation", () => {
  it("when keys rotate, new tokens use the new key and tokens of the old key stay valid until they expire", async () => {
    const { signingKeys } = services();
    const ttl = config().settings.tokens.accessTtlSeconds;
    const before = createAccessTokens(createKeyRing(signingKeys), "svc-identity");
    const old = await before.issue({ sub: "app", clientId: "app", scopes: ["svc_groups"], ttlSeconds: 60 });

    const { kid, retired } = await rotateSigningKeys(signingKeys, ttl);
    expect(retired).toContain(decodeProtectedHeader(old.token).kid);

    // A container started after the rotation.
    const ring = createKeyRing(signingKeys);
    const after = createAccessTokens(ring, "svc-identity");
    const fresh = await after.issue({ sub: "app", clientId: "app", scopes: ["svc_groups"], ttlSeconds: 60 });
    expect(decodeProtectedHeader(fresh.token).kid).toBe(kid);
    await expect(after.verify(old.token)).resolves.toMatchObject({ sub: "app" });
    const published = (await ring.jwks()).keys.map((k) => k.kid);
    expect(published).toEqual(expect.arrayContaining([kid, ...retired]));

    const stored = await signingKeys.listPublic();
    const retiredRecord = stored.find((k) => k.kid === retired[0]);
    expect(retiredRecord?.retireAt).toBeGreaterThan(Date.now() / 1000 + ttl);
  });

  it("when a retired key's time has passed, it leaves JWKS and its tokens are refused", async () => {
    const { signingKeys } = services();
    const ring = createKeyRing(signingKeys);
    const tokens = createAccessTokens(ring, "svc-identity");
    const issued = await tokens.issue({ sub: "app", clientId: "app", scopes: ["svc_groups"], ttlSeconds: 60 });
    await rotateSigningKeys(signingKeys, 60);
    // Seen from a clock past the retirement of the key that signed `issued`.
    const future = createKeyRing(signingKeys, () => Date.now() / 1000 + 3600);
    const later = createAccessTokens(future, "svc-identity");
    const kid = decodeProtectedHeader(issued.token).kid;
    expect((await future.jwks()).keys.map((k) => k.kid)).not.toContain(kid);
    await expect(later.verify(issued.token)).rejects.toMatchObject({ error: "bad_access_token" });
  });
});
