import { afterEach, describe, expect, it, vi } from "vitest";
import { totpCode } from "./totp-codes";

// RFC 6238 appendix B, SHA-1: the secret "12345678901234567890"; the RFC's codes have
// eight digits, authenticator apps show their last six.
const RFC_SECRET = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ";

afterEach(() => {
  vi.useRealTimers();
});

describe("the TOTP oracle of the tests", () => {
  it.each([
    [59, 0, "287082"],
    [1111111109, 0, "081804"],
    [1234567890, 0, "005924"],
    [2000000000, 0, "279037"],
    [1111111079, 30, "081804"],
    [1111111139, -30, "081804"],
  ])("when the clock reads %i s and the offset is %i s, the code is the RFC's %s", (seconds, offset, expected) => {
    vi.useFakeTimers({ now: seconds * 1000, toFake: ["Date"] });
    expect(totpCode(RFC_SECRET, offset)).toBe(expected);
  });
});
