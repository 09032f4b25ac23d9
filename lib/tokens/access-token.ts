import { createHash, randomUUID } from "node:crypto";
import { errors as joseErrors, jwtVerify, SignJWT } from "jose";
import { problems } from "../domain/errors";
import {
  type AccessTokenClaims,
  type AccessTokenInput,
  type AccessTokenIssuer,
  type IdTokenInput,
  MANAGEMENT_API_AUDIENCE,
} from "../domain/oauth/ports";
import type { LogoutTokenClaims } from "../domain/sessions/backchannel-logout";
import { log } from "../log";
import { ACCESS_TOKEN_ALG, type KeyRing, NoSigningKeyError, type SigningAlg } from "./key-ring";
import { createVerifiedTokens } from "./verified-tokens";

/** RFC 9068 access tokens. */
export const ACCESS_TOKEN_TYPE = "at+jwt";
/** Our resource server is the management API itself. */
export const AUDIENCE = MANAGEMENT_API_AUDIENCE;

export type { AccessTokenClaims };

/** The domain's issuer, with the verification the HTTP layer needs. */
export interface AccessTokens extends AccessTokenIssuer {
  issue(input: AccessTokenInput): Promise<{ token: string; claims: AccessTokenClaims }>;
  /** `audience` null: any audience (introspection, revocation); default the management API. */
  verify(token: string, audience?: string | null): Promise<AccessTokenClaims>;
}

export function createAccessTokens(
  keyRing: KeyRing,
  /** A function where the configuration may change after the tokens are built (local tools, tests). */
  issuerOf: string | (() => string),
  now: () => number = Date.now,
): AccessTokens {
  const verified = createVerifiedTokens<AccessTokenClaims>(now);
  const issuer = typeof issuerOf === "string" ? () => issuerOf : issuerOf;
  return {
    async issue(input: AccessTokenInput): Promise<{ token: string; claims: AccessTokenClaims }> {
      const { kid, key } = await keyRing.signingKey(ACCESS_TOKEN_ALG);
      const iat = Math.floor(Date.now() / 1000);
      const claims: AccessTokenClaims = {
        iss: issuer(),
        sub: input.sub,
        aud: input.audience ?? AUDIENCE,
        client_id: input.clientId,
        scope: input.scopes.join(" "),
        iat,
        exp: Math.min(iat + input.ttlSeconds, input.notAfter ?? Number.POSITIVE_INFINITY),
        jti: randomUUID(),
        ...(input.sid && { sid: input.sid }),
        ...(input.uaId && { ua_id: input.uaId }),
        ...(input.act && { act: input.act }),
      };
      const token = await new SignJWT({ ...input.extraClaims, ...claims })
        .setProtectedHeader({ alg: ACCESS_TOKEN_ALG, typ: ACCESS_TOKEN_TYPE, kid })
        .sign(key);
      return { token, claims };
    },

    /**
     * Verifies signature (ES256 only), type, issuer, audience and lifetime. Every
     * failure is the same 401 to the caller, but for expiry, which interface §7.2 names.
     */
    async verify(token: string, audience: string | null = AUDIENCE): Promise<AccessTokenClaims> {
      const known = verified.get(token);
      if (known && audience !== null && known.aud !== audience) throw problems.badAccessToken("invalid_access_token");
      if (known) return known;
      try {
        const { payload } = await jwtVerify(
          token,
          async (header) => {
            const key = header.kid ? await keyRing.verificationKey(header.kid, ACCESS_TOKEN_ALG) : undefined;
            if (!key) throw problems.badAccessToken("unknown_signing_key");
            return key;
          },
          {
            algorithms: [ACCESS_TOKEN_ALG],
            typ: ACCESS_TOKEN_TYPE,
            issuer: issuer(),
            audience: audience ?? undefined,
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

/** OIDC Core 3.1.3.6: the left half of the access token's SHA-256, for RS256 and ES256 alike. */
export function atHash(accessToken: string): string {
  return createHash("sha256").update(accessToken, "ascii").digest().subarray(0, 16).toString("base64url");
}

/**
 * The ID token (OIDC Core 2, docs/sign-in.md): who signed in, when and how, on which device.
 * Its `ua_id` is what the application sends back as SVC-CI-UA-ID (interface §5.2).
 */
export async function issueIdToken(
  keyRing: KeyRing,
  issuer: string,
  input: IdTokenInput & { ttlSeconds: number },
): Promise<string> {
  const { kid, key, alg } = await idTokenKey(keyRing, input.alg ?? "RS256");
  const iat = Math.floor(Date.now() / 1000);
  return new SignJWT({
    ...input.claims,
    sid: input.sid,
    ua_id: input.uaId,
    auth_time: input.authTime,
    ...(input.nonce !== undefined && { nonce: input.nonce }),
    ...(input.accessToken !== undefined && { at_hash: atHash(input.accessToken) }),
    ...(input.amr && { amr: input.amr, acr: input.amr.includes("mfa") ? ACR_MFA : ACR_PASSWORD }),
  })
    .setProtectedHeader({ alg, typ: "JWT", kid })
    .setIssuer(issuer)
    .setSubject(input.sub)
    .setAudience(input.clientId)
    .setIssuedAt(iat)
    .setExpirationTime(iat + input.ttlSeconds)
    .sign(key);
}

/** Back-Channel Logout 1.0 2.4: the logout token, signed as the client's ID tokens are. */
export function logoutTokenSigner(keyRing: KeyRing, issuer: string) {
  return async (claims: LogoutTokenClaims, alg: SigningAlg): Promise<string> => {
    const { kid, key, alg: signedWith } = await idTokenKey(keyRing, alg);
    return new SignJWT({ ...claims })
      .setProtectedHeader({ alg: signedWith, typ: "logout+jwt", kid })
      .setIssuer(issuer)
      .sign(key);
  };
}

let warnedNoRsaKey = false;

/**
 * A deployment upgraded from ES256-only holds no RS256 key until its next rotation: it
 * keeps signing ID tokens as it did (ES256) and says how to add the key, rather than fail
 * every sign-in.
 */
async function idTokenKey(keyRing: KeyRing, alg: SigningAlg) {
  try {
    return await keyRing.signingKey(alg);
  } catch (error) {
    if (!(error instanceof NoSigningKeyError) || alg === ACCESS_TOKEN_ALG) throw error;
    // Once per container: the state lasts until an operator acts, and every sign-in meets it.
    if (!warnedNoRsaKey)
      log.warn("no RS256 signing key yet: ID tokens are signed ES256 until `svc-admin keys rotate` adds one");
    warnedNoRsaKey = true;
    return keyRing.signingKey(ACCESS_TOKEN_ALG);
  }
}

/** acr values: one factor, or more than one (docs/sign-in.md). */
export const ACR_PASSWORD = "urn:svc:acr:pwd";
export const ACR_MFA = "urn:svc:acr:mfa";
