import { execFileSync } from "node:child_process";

/**
 * TOTP codes from an independent implementation (Debian's oathtool), not from otplib.
 * Tests that need it skip with a message when it is not installed.
 */
function installed(): boolean {
  try {
    execFileSync("oathtool", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

export const HAS_OATHTOOL = installed();
if (!HAS_OATHTOOL) console.warn("TOTP tests skipped: oathtool is not installed (apt-get install -y oathtool)");

/** The code of `secret` at now + offsetSeconds. */
export function oathtoolCode(secret: string, offsetSeconds = 0): string {
  const offset = `now ${offsetSeconds >= 0 ? "+" : "-"} ${Math.abs(offsetSeconds)} seconds`;
  return execFileSync("oathtool", ["--totp", "-b", "-N", offset, secret]).toString().trim();
}
