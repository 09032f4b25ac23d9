import type { PendingWrite } from "../unit-of-work";
import type { RequestedClaims } from "./claims-request";

/** An authorization code as stored: only the digest of the code itself (docs/sign-in.md). */
export interface AuthorizationCodeRecord {
  codeHash: string;
  clientId: string;
  redirectUri: string;
  /** PKCE S256 challenge, when the client sent one. */
  codeChallenge?: string;
  sub: string;
  /** The browser session the user signed in with, and its device. */
  browserSid: string;
  uaId: string;
  scopes: string[];
  nonce?: string;
  authTime: number;
  amr: string[];
  resource?: string;
  /** Claims the request named one by one (OIDC Core 5.5). */
  claims?: RequestedClaims;
  /** RFC 9449 10: the key the code's exchange must prove (dpop_jkt). */
  dpopJkt?: string;
  /** The organization the tokens act for (`organization=<id>`). */
  organization?: string;
  /** Unix seconds; the item also leaves through the table's TTL. */
  expiresAt: number;
  /** issued, then used; `sid` names the session its exchange opened (ended if the code comes back). */
  status: "issued" | "used";
  sid?: string;
}

export interface AuthorizationCodeRepository {
  create(record: AuthorizationCodeRecord): Promise<void>;
  get(codeHash: string): Promise<AuthorizationCodeRecord | undefined>;
  /** Marks an issued, live code used by the session `sid`, in the exchange's transaction. */
  redeemItem(codeHash: string, sid: string, now: number): PendingWrite;
}
