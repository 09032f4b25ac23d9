import { describe, expect, it } from "vitest";
import { importAccounts } from "../../../../lib/domain/accounts/import";
import { parseHashString } from "../../../../lib/domain/credentials/foreign-hash";

/** Lines that must fail before storage: a store that is never called. */
const refusingStore = {
  read: async () => undefined,
  write: async () => {
    throw new Error("nothing may be written");
  },
};

async function errorOf(line: Record<string, unknown>): Promise<string> {
  const summary = await importAccounts([JSON.stringify(line)], { accounts: refusingStore });
  expect(summary.failed).toBe(1);
  return summary.errors[0].message;
}

describe("password hashes of other systems in import lines", () => {
  it("when a hash comes as a string, bcrypt, Django PBKDF2 and argon2id PHC forms are read", () => {
    const bcrypt = "$2y$10$abcdefghijklmnopqrstuu5Pj0ZhbX1Zl9pI6/vnaOFzSsGXbb3xW";
    expect(parseHashString(bcrypt)).toEqual({ alg: "bcrypt", hash: bcrypt });
    expect(parseHashString("pbkdf2_sha256$260000$salty$c2VjcmV0")).toEqual({
      alg: "pbkdf2-sha256",
      iterations: 260000,
      salt: Buffer.from("salty").toString("base64"),
      hash: "c2VjcmV0",
    });
    const phc = "$argon2id$v=19$m=65536,t=3,p=4$c2FsdHNhbHQ$aGFzaGhhc2g";
    expect(parseHashString(phc)).toEqual({ alg: "argon2id", hash: phc });
    expect(parseHashString("md5$whatever")).toBeUndefined();
  });

  it("when a hash is unreadable or too costly, the line is refused by field, never quoting the hash", async () => {
    const unknown = "sha1$0123456789abcdef";
    const message = await errorOf({ sub: "x1", password_hash: unknown });
    expect(message).toContain("password_hash is not a hash this import reads");
    expect(message).not.toContain(unknown);
    const salt = Buffer.alloc(16).toString("base64");
    const hash = Buffer.alloc(32).toString("base64");
    expect(await errorOf({ sub: "x2", password_hash: { alg: "scrypt", N: 2 ** 20, r: 8, p: 1, salt, hash } })).toBe(
      "password_hash needs more than 256 MiB (128 * N * r)",
    );
    expect(
      await errorOf({ sub: "x3", password_hash: { alg: "pbkdf2-sha256", iterations: 10 ** 9, salt, hash } }),
    ).toMatch(/^password_hash.iterations must be 1 to/);
    expect(
      await errorOf({ sub: "x4", password_hash: "$argon2id$v=19$m=1048576,t=3,p=4$c2FsdHNhbHQ$aGFzaGhhc2g" }),
    ).toBe("password_hash needs more than 256 MiB (m)");
    expect(await errorOf({ sub: "x5", password: "p", password_hash: { alg: "bcrypt", hash: "x" } })).toBe(
      "give password or password_hash, not both",
    );
  });
});
