import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { open, SealedBoxError, seal } from "../../../lib/crypto/sealed-box";
import { signValue, verifySignedValue } from "../../../lib/crypto/signed-value";

const key = randomBytes(32);

describe("sealed values (AES-256-GCM)", () => {
  it("when sealed and opened with the same key and context, it gives the text back", () => {
    const sealed = seal(key, "provider access token ✓", "ctx-1");
    expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+$/);
    expect(open(key, sealed, "ctx-1")).toBe("provider access token ✓");
  });

  it("when the same text is sealed twice, the sealed values differ (fresh IV)", () => {
    expect(seal(key, "same", "ctx")).not.toBe(seal(key, "same", "ctx"));
  });

  it.each([
    ["another key", (s: string) => open(randomBytes(32), s, "ctx")],
    ["another context", (s: string) => open(key, s, "other-ctx")],
    ["a flipped byte", (s: string) => open(key, `${s.slice(0, -2)}${s.at(-2) === "A" ? "B" : "A"}${s.at(-1)}`, "ctx")],
    ["an unknown format", (s: string) => open(key, s.replace(/^v1/, "v9"), "ctx")],
    ["a cut value", (s: string) => open(key, s.slice(0, 20), "ctx")],
  ])("when opened with %s, it refuses", (_, attempt) => {
    const sealed = seal(key, "secret", "ctx");
    expect(() => attempt(sealed)).toThrow(SealedBoxError);
  });
});

describe("signed values (HMAC-SHA256)", () => {
  it("when the signature is ours, it gives the value back", () => {
    expect(verifySignedValue(key, signValue(key, "state-id"))).toBe("state-id");
  });

  it.each([
    ["another key", () => verifySignedValue(randomBytes(32), signValue(key, "id"))],
    ["a changed value", () => verifySignedValue(key, signValue(key, "id").replace(/^id/, "ie"))],
    ["no signature", () => verifySignedValue(key, "id")],
    ["an empty value", () => verifySignedValue(key, ".abc")],
    ["a short signature", () => verifySignedValue(key, `${signValue(key, "id").slice(0, -4)}`)],
  ])("when it has %s, it is not ours", (_, attempt) => {
    expect(attempt()).toBeUndefined();
  });
});
