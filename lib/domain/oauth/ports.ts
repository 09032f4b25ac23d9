import type { IdTokenAlg } from "../clients/client";

/** Tokens the domain hands out; signing them is someone else's business. */

/** The claims of our access tokens (RFC 9068). */
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

export interface AccessTokenInput {
  sub: string;
  clientId: string;
  scopes: string[];
  ttlSeconds: number;
  /** User tokens only: the session and the device they belong to. */
  sid?: string;
  uaId?: string;
  /** RFC 8707: the resource server the token is for; default the management API. */
  audience?: string;
  /** Claims the preTokenIssue hook added (reserved ones already dropped); ours win any clash. */
  extraClaims?: Record<string, unknown>;
}

export interface AccessTokenIssuer {
  issue(input: AccessTokenInput): Promise<{ token: string }>;
}

/** The ID token (OIDC Core 2): who signed in, when, how, on which device. */
export interface IdTokenInput {
  sub: string;
  clientId: string;
  sid: string;
  uaId: string;
  authTime: number;
  nonce?: string;
  /** The access token issued beside it, for at_hash. */
  accessToken?: string;
  amr?: string[];
  /** Standard claims the scopes released (OIDC Core 5.4). */
  claims?: Record<string, unknown>;
  /** The client's id_token_signed_response_alg; RS256 when absent. */
  alg?: IdTokenAlg;
}

export type IdTokenIssuer = (input: IdTokenInput) => Promise<string>;
