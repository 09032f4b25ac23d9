import { randomUUID } from "node:crypto";
import { generateKeyPair, SignJWT, UnsecuredJWT } from "jose";
import { services } from "../../lib/container";
import { AUDIENCE } from "../../lib/tokens/access-token";

/** Tokens an attacker or a broken client might send; each must be refused with 401. */

function claims(scope: string, overrides: Record<string, unknown> = {}) {
  const now = Math.floor(Date.now() / 1000);
  return {
    iss: "svc-identity",
    sub: "forger",
    aud: AUDIENCE,
    client_id: "forger",
    scope,
    iat: now,
    exp: now + 600,
    jti: randomUUID(),
    ...overrides,
  };
}

export async function forgedTokens(scope: string): Promise<Record<string, string>> {
  const real = await services().keyRing.signingKey();
  const stranger = await generateKeyPair("ES256");
  const sign = (payload: Record<string, unknown>, header: Record<string, unknown>, key = real.key) =>
    new SignJWT(payload).setProtectedHeader({ alg: "ES256", typ: "at+jwt", kid: real.kid, ...header }).sign(key);
  const hsKey = new TextEncoder().encode(JSON.stringify((await services().keyRing.jwks()).keys[0]));
  return {
    "alg none": new UnsecuredJWT(claims(scope)).encode(),
    "wrong signature": await sign(claims(scope), {}, stranger.privateKey),
    "unknown kid": await sign(claims(scope), { kid: "not-a-key-of-ours" }, stranger.privateKey),
    "HS256 signed with the public key": await new SignJWT(claims(scope))
      .setProtectedHeader({ alg: "HS256", typ: "at+jwt", kid: real.kid })
      .sign(hsKey),
    "wrong typ": await sign(claims(scope), { typ: "JWT" }),
    "not yet valid": await sign(claims(scope, { nbf: Math.floor(Date.now() / 1000) + 3600 }), {}),
    "another issuer": await sign(claims(scope, { iss: "https://evil.example" }), {}),
    "another audience": await sign(claims(scope, { aud: "someone-else" }), {}),
    malformed: "not.a.jwt",
    truncated: (await sign(claims(scope), {})).slice(0, -10),
  };
}

/** A token that expired a minute ago, signed with our real key. */
export async function expiredToken(scope: string): Promise<string> {
  const real = await services().keyRing.signingKey();
  const past = Math.floor(Date.now() / 1000) - 3600;
  return new SignJWT(claims(scope, { iat: past, exp: past + 60 }))
    .setProtectedHeader({ alg: "ES256", typ: "at+jwt", kid: real.kid })
    .sign(real.key);
}
