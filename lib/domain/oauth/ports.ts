import type { IdTokenAlg } from "../clients/client";
import type { PendingWrite } from "../unit-of-work";

/** Tokens the domain hands out; signing them is someone else's business. */

/** The `aud` of a token for our management API, whose resource identifier is the issuer. */
export const MANAGEMENT_API_AUDIENCE = "svc-api";

/** RFC 8693 4.1: who acts for the subject; a chain of delegations nests the earlier actor inside. */
export interface ActorClaim {
  sub: string;
  client_id: string;
  act?: ActorClaim;
}

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
  /** RFC 9449 6.1: the key the token is bound to; it is only good with a DPoP proof of that key. */
  cnf?: { jkt: string };
  /** A token exchanged for delegation (RFC 8693). */
  act?: ActorClaim;
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
  /** Epoch seconds it may not outlive (an exchanged token, its subject token's expiry). */
  notAfter?: number;
  /** RFC 8693 delegation: the actor. */
  act?: ActorClaim;
  /** Claims the preTokenIssue hook added (reserved ones already dropped); ours win any clash. */
  extraClaims?: Record<string, unknown>;
}

export interface AccessTokenIssuer {
  issue(input: AccessTokenInput): Promise<{ token: string }>;
}

/** Checks one of our access tokens (signature, issuer, expiry) whatever its audience; throws when it is not one. */
export interface AccessTokenVerifier {
  verify(token: string, audience: null): Promise<AccessTokenClaims>;
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

/** What a user approved on another device, as an authorization code carries it (RFC 8628 3.3). */
export interface DeviceApproval {
  sub: string;
  browserSid: string;
  uaId: string;
  authTime: number;
  amr: string[];
}

/** A device authorization (RFC 8628): one per user code, short-lived (TTL). */
export interface DeviceAuthorizationRecord {
  /** Normalised: eight letters of USER_CODE_LETTERS. */
  userCode: string;
  /** Digest of the device code's secret part: the code itself is never stored. */
  secretHash: string;
  clientId: string;
  scopes: string[];
  /** The audience its tokens carry (RFC 8707), checked when the device asked. */
  resource?: string;
  status: "pending" | "approved" | "denied" | "used";
  expiresAt: number;
  /** Seconds the device waits between polls. */
  interval: number;
  approval?: DeviceApproval;
}

/** A poll as the store answers it: the record, a poll within the interval, or nothing under this code and secret. */
export type DevicePoll = { record: DeviceAuthorizationRecord } | { tooSoon: true } | undefined;

export interface DeviceAuthorizationRepository {
  /** False when the user code is taken (nothing written). */
  create(record: DeviceAuthorizationRecord): Promise<boolean>;
  get(userCode: string): Promise<DeviceAuthorizationRecord | undefined>;
  /** Notes the poll, unless the previous one was within the interval; one write, the secret checked in it. */
  poll(userCode: string, secretHash: string, now: number, interval: number): Promise<DevicePoll>;
  /** The user's answer; false unless it was pending and live (a second answer changes nothing). */
  decide(userCode: string, answer: { approval: DeviceApproval } | "denied", now: number): Promise<boolean>;
  /** Counts a user code typed from `address` this hour; false once `max` were (nothing counted then). */
  admitTry(address: string, now: number, max: number): Promise<boolean>;
  /** Spends an approved authorization, in the transaction that opens the session. */
  redeemItem(userCode: string): PendingWrite;
}

/**
 * A pushed authorization request (RFC 9126): the parameters as the client sent them, a plain
 * map so a later parameter (dpop_jkt) rides along; one use, short-lived (TTL).
 */
export interface PushedAuthorizationRecord {
  /** The random part of its request_uri. */
  reference: string;
  clientId: string;
  params: Record<string, string>;
  expiresAt: number;
}

export interface PushedAuthorizationRepository {
  /** False when the reference is taken (nothing written). */
  create(record: PushedAuthorizationRecord): Promise<boolean>;
  /** Removes and answers the parameters when the reference is the client's and alive; one write, never twice. */
  take(reference: string, clientId: string, now: number): Promise<Record<string, string> | undefined>;
}
