/** Tokens the domain hands out; signing them is someone else's business. */

export interface AccessTokenInput {
  sub: string;
  clientId: string;
  scopes: string[];
  ttlSeconds: number;
  /** User tokens only: the session and the device they belong to. */
  sid?: string;
  uaId?: string;
}

export interface AccessTokenIssuer {
  issue(input: AccessTokenInput): Promise<{ token: string }>;
}

/** The identification token of the password grant: who signed in, on which device. */
export type IdTokenIssuer = (input: {
  sub: string;
  clientId: string;
  sid: string;
  uaId: string;
  authTime: number;
}) => Promise<string>;
