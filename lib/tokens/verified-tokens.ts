/** Bounds the memory a flood of distinct valid tokens can take in one container. */
const MAX_ENTRIES = 10_000;
/** A removed signing key stops being trusted by warm containers within this. */
const MAX_AGE_MS = 60_000;

/**
 * Access tokens whose signature and claims were checked, kept by their exact text (so a
 * token with any other signature is checked afresh) until they expire, for at most a
 * minute. An application sends the same token on every call: each container checks its
 * ES256 signature once. Revocation is not affected: user tokens still meet the session
 * check on every call.
 */
export function createVerifiedTokens<Claims extends { exp: number }>(now: () => number = Date.now) {
  const entries = new Map<string, { claims: Claims; until: number }>();
  return {
    get(token: string): Claims | undefined {
      const found = entries.get(token);
      if (!found) return undefined;
      if (found.until > now()) return found.claims;
      entries.delete(token);
      return undefined;
    },
    remember(token: string, claims: Claims): void {
      if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value as string);
      entries.set(token, { claims, until: Math.min(claims.exp * 1000, now() + MAX_AGE_MS) });
    },
  };
}
