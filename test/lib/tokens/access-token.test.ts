import { SignJWT } from "jose";
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
      verificationKey: (kid: string, alg: string) => {
        lookups += 1;
        return ring.verificationKey(kid, alg);
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

  it("when a token is signed with the service's own RS256 key (an ID token key), it is refused as an access token", async () => {
    const ring = createKeyRing(services().signingKeys);
    const tokens = createAccessTokens(ring, "svc-identity");
    const { claims } = await tokens.issue({ ...TOKEN, ttlSeconds: 60 });
    const rsa = await ring.signingKey("RS256");
    for (const alg of ["RS256", "ES256"]) {
      // The RSA kid with its own algorithm, and the RSA kid claimed as ES256 (a confused key).
      const forged = await new SignJWT({ ...claims })
        .setProtectedHeader({ alg: "RS256", typ: "at+jwt", kid: rsa.kid })
        .sign(rsa.key);
      const header = Buffer.from(JSON.stringify({ alg, typ: "at+jwt", kid: rsa.kid })).toString("base64url");
      const token = alg === "RS256" ? forged : [header, ...forged.split(".").slice(1)].join(".");
      await expect(tokens.verify(token)).rejects.toMatchObject({ status: 401, error: "bad_access_token" });
      await expect(tokens.verify(token, null)).rejects.toMatchObject({ status: 401, error: "bad_access_token" });
    }
  });
});
