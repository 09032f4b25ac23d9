import { scrypt as scryptJs } from "scrypt-js";
import { describe, expect, it } from "vitest";
import { DEFAULT_SCRYPT, hashPassword, verifyPassword } from "../../../../lib/domain/credentials/password-hash";

describe("password hashes", () => {
  it("when hashed with node:crypto, the key is byte-identical to scrypt-js with the same parameters", async () => {
    const stored = await hashPassword("correct horse battery staple", DEFAULT_SCRYPT);
    const oracle = await scryptJs(
      Buffer.from("correct horse battery staple".normalize("NFKC")),
      Buffer.from(stored.salt, "base64"),
      stored.N,
      stored.r,
      stored.p,
      stored.keyLength,
    );
    expect(Buffer.from(oracle).toString("base64")).toBe(stored.hash);
    expect(stored).toMatchObject({ alg: "scrypt", N: 2 ** 17, r: 8, p: 1 });
  });

  it("when verified, the right password matches and a wrong one does not", async () => {
    const params = { N: 2 ** 10, r: 8, p: 1, keyLength: 32 };
    const stored = await hashPassword("Pa55word!", params);
    expect(await verifyPassword("Pa55word!", stored)).toBe(true);
    expect(await verifyPassword("Pa55word?", stored)).toBe(false);
    expect(JSON.stringify(stored)).not.toContain("Pa55word");
  });

  it("when the same password is hashed twice, the salts differ", async () => {
    const params = { N: 2 ** 10, r: 8, p: 1, keyLength: 32 };
    const [a, b] = await Promise.all([hashPassword("same", params), hashPassword("same", params)]);
    expect(a.salt).not.toBe(b.salt);
    expect(a.hash).not.toBe(b.hash);
  });
});
