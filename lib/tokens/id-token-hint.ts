import { compactVerify, decodeJwt, decodeProtectedHeader } from "jose";
import { type KeyRing, SIGNING_ALGS } from "./key-ring";

/**
 * The `sub` and first audience of an ID token this issuer signed, whatever its age (OIDC
 * Core 3.1.2.1 id_token_hint, RP-initiated logout); undefined for anything else.
 */
export function idTokenHints(keyRing: Pick<KeyRing, "verificationKey">, issuer: string) {
  return async (token: string): Promise<{ sub: string; aud: string } | undefined> => {
    try {
      const { kid, alg } = decodeProtectedHeader(token);
      const key = kid && alg ? await keyRing.verificationKey(kid, alg) : undefined;
      if (!key) return undefined;
      await compactVerify(token, key, { algorithms: [...SIGNING_ALGS] });
      const claims = decodeJwt(token);
      if (claims.iss !== issuer || typeof claims.sub !== "string") return undefined;
      const aud = Array.isArray(claims.aud) ? claims.aud[0] : claims.aud;
      return typeof aud === "string" ? { sub: claims.sub, aud } : undefined;
    } catch {
      return undefined;
    }
  };
}
