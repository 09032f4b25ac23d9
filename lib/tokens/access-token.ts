import { randomUUID } from "node:crypto";
import { errors as joseErrors, jwtVerify, SignJWT } from "jose";
import { problems } from "../domain/errors";
import type { AccessTokenInput, AccessTokenIssuer } from "../domain/oauth/ports";
import { type KeyRing, SIGNING_ALG } from "./key-ring";
import { createVerifiedTokens } from "./verified-tokens";

/** RFC 9068 access tokens. */
export const ACCESS_TOKEN_TYPE = "at+jwt";
/** Our resource server is the management API itself. */
export const AUDIENCE = "svc-api";

export interface AccessTokenClaims {
  iss: string;
  sub: string;
  aud: string;
  client_id: string;
  scope: string;
  iat: number;
  exp: number;
  jti: string;
  sid?: string;
  ua_id?: string;
}

/** The domain's issuer, with the verification the HTTP layer needs. */
export interface AccessTokens extends AccessTokenIssuer {
  issue(input: AccessTokenInput): Promise<{ token: string; claims: AccessTokenClaims }>;
  verify(token: string): Promise<AccessTokenClaims>;
}

export function createAccessTokens(keyRing: KeyRing, issuer: string, now: () => number = Date.now): AccessTokens {
  const verified = createVerifiedTokens<AccessTokenClaims>(now);
  return {
    async issue(input: AccessTokenInput): Promise<{ token: string; claims: AccessTokenClaims }> {
      const { kid, key } = await keyRing.signingKey();
      const iat = Math.floor(Date.now() / 1000);
      const claims: AccessTokenClaims = {
        iss: issuer,
        sub: input.sub,
        aud: AUDIENCE,
        client_id: input.clientId,
        scope: input.scopes.join(" "),
        iat,
        exp: iat + input.ttlSeconds,
        jti: randomUUID(),
        ...(input.sid && { sid: input.sid }),
        ...(input.uaId && { ua_id: input.uaId }),
      };
      const token = await new SignJWT({ ...claims })
        .setProtectedHeader({ alg: SIGNING_ALG, typ: ACCESS_TOKEN_TYPE, kid })
        .sign(key);
      return { token, claims };
    },

    /**
     * Verifies signature (ES256 only), type, issuer, audience and lifetime. Every
     * failure is the same 401 to the caller, but for expiry, which interface §7.2 names.
     */
    async verify(token: string): Promise<AccessTokenClaims> {
      const known = verified.get(token);
      if (known) return known;
      try {
        const { payload } = await jwtVerify(
          token,
          async (header) => {
            const key = header.kid ? await keyRing.verificationKey(header.kid) : undefined;
            if (!key) throw problems.badAccessToken("unknown_signing_key");
            return key;
          },
          {
            algorithms: [SIGNING_ALG],
            typ: ACCESS_TOKEN_TYPE,
            issuer,
            audience: AUDIENCE,
            requiredClaims: ["exp", "iat", "sub"],
          },
        );
        if (typeof payload.client_id !== "string" || typeof payload.scope !== "string") {
          throw problems.badAccessToken("invalid_access_token");
        }
        const claims = payload as unknown as AccessTokenClaims;
        verified.remember(token, claims);
        return claims;
      } catch (error) {
        if (error instanceof joseErrors.JWTExpired) throw problems.badAccessToken("expired_access_token");
        if (error instanceof joseErrors.JOSEError) throw problems.badAccessToken("invalid_access_token");
        throw error;
      }
    },
  };
}

/**
 * The identification token of the password grant (docs/architecture.md): who signed in, on which
 * device. Its `ua_id` is what the application sends back as SVC-CI-UA-ID.
 */
export async function issueIdToken(
  keyRing: KeyRing,
  issuer: string,
  input: { sub: string; clientId: string; sid: string; uaId: string; authTime: number; ttlSeconds: number },
): Promise<string> {
  const { kid, key } = await keyRing.signingKey();
  return new SignJWT({ sid: input.sid, ua_id: input.uaId, auth_time: input.authTime })
    .setProtectedHeader({ alg: SIGNING_ALG, typ: "JWT", kid })
    .setIssuer(issuer)
    .setSubject(input.sub)
    .setAudience(input.clientId)
    .setIssuedAt(input.authTime)
    .setExpirationTime(input.authTime + input.ttlSeconds)
    .sign(key);
}
