import { describe, expect, it } from "vitest";
import { services } from "../../../lib/container";
import { createAccessTokens } from "../../../lib/tokens/access-token";
import { createKeyRing, type KeyRing } from "../../../lib/tokens/key-ring";

/** The container's key ring, counting how often a signature check asks for a key. */
function countingRing(): { ring: KeyRing; lookups: () => number } {
  const ring = createKeyRing(services().signingKeys);
  let lookups = 0;
  return {
    ring: {
      ...ring,
      verificationKey: (kid: string) => {
        lookups += 1;
        return ring.verificationKey(kid);
      },
    },
    lookups: () => lookups,
  };
}

const TOKEN = { sub: "app", clientId: "app", scopes: ["svc_api_sys_users"] };

describe("access token verification", () => {
  it("when the same token comes again, its signature is not checked again", async () => {
    const { ring, lookups } = countingRing();
    const tokens = createAccessTokens(ring, "svc-identity");
    const { token } = await tokens.issue({ ...TOKEN, ttlSeconds: 60 });
    await expect(tokens.verify(token)).resolves.toMatchObject({ sub: "app", scope: "svc_api_sys_users" });
    await expect(tokens.verify(token)).resolves.toMatchObject({ sub: "app", scope: "svc_api_sys_users" });
    expect(lookups()).toBe(1);
  });

  it("when a token differs from a checked one only in its signature, it is checked afresh and refused", async () => {
    const tokens = createAccessTokens(createKeyRing(services().signingKeys), "svc-identity");
    const { token } = await tokens.issue({ ...TOKEN, ttlSeconds: 60 });
    await tokens.verify(token);
    const [header, payload, signature] = token.split(".");
    const other = `${header}.${payload}.${signature.startsWith("A") ? "B" : "A"}${signature.slice(1)}`;
    await expect(tokens.verify(other)).rejects.toMatchObject({ status: 401, error: "bad_access_token" });
  });

  it("when a checked token expires, it is refused as expired", async () => {
    const tokens = createAccessTokens(createKeyRing(services().signingKeys), "svc-identity");
    const { token } = await tokens.issue({ ...TOKEN, ttlSeconds: 1 });
    await tokens.verify(token);
    await new Promise((done) => setTimeout(done, 2100));
    await expect(tokens.verify(token)).rejects.toMatchObject({ status: 401 });
    await expect(tokens.verify(token)).rejects.toThrow(/expired/);
  });
});
