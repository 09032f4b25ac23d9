import { createHash } from "node:crypto";
import type { BreachedPasswordsConfig } from "../config/settings";
import type { BreachedPasswordCheck } from "../domain/passwords/ports";

/**
 * Have I Been Pwned's Pwned Passwords range API (k-anonymity): only the first 5 hex
 * characters of the password's SHA-1 leave the service, and `Add-Padding` makes every
 * answer about the same size, so neither the password nor its hash can be told from the
 * traffic. The rest of the hash is compared here.
 */

const ENTRY = /^([0-9A-F]{35}):(\d+)$/;

/** The breach count of `suffix` in a range answer; padding entries count 0. */
function breachCountOf(answer: string, suffix: string): number {
  let count = 0;
  for (const line of answer.split(/\r?\n/)) {
    if (line === "") continue;
    const entry = ENTRY.exec(line.toUpperCase());
    // One line out of shape and the whole answer is suspect: better no answer than a wrong one.
    if (!entry) throw new Error("the range answer has a line that is not SUFFIX:COUNT");
    if (entry[1] === suffix) count = Number(entry[2]);
  }
  return count;
}

function reasonOf(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && error.name === "TimeoutError") return `no answer within ${timeoutMs} ms`;
  const cause = error instanceof Error ? (error.cause as { code?: string } | undefined)?.code : undefined;
  return [(error as Error).message, cause].filter(Boolean).join(": ");
}

export function pwnedRangeCheck(
  settings: BreachedPasswordsConfig,
  warn: (message: string, fields: Record<string, unknown>) => void,
): BreachedPasswordCheck {
  const base = settings.rangeUrl.replace(/\/+$/, "");
  return {
    async isBreached(password) {
      const hash = createHash("sha1").update(password, "utf8").digest("hex").toUpperCase();
      const prefix = hash.slice(0, 5);
      try {
        const response = await fetch(`${base}/${prefix}`, {
          headers: { "Add-Padding": "true" },
          signal: AbortSignal.timeout(settings.timeoutMs),
        });
        if (response.status !== 200) {
          await response.body?.cancel();
          throw new Error(`the range API answered ${response.status}`);
        }
        return breachCountOf(await response.text(), hash.slice(5)) > 0;
      } catch (error) {
        // The prefix is what the API saw anyway; the password and the rest of its hash stay out of the line.
        warn("breached-password lookup failed; the password is judged on the other rules", {
          rangePrefix: prefix,
          reason: reasonOf(error, settings.timeoutMs),
        });
        return false;
      }
    },
  };
}
