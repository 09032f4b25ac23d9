import type { Account } from "../accounts/account";
import type { DeviceRecord } from "../devices/device";
import type { PendingWrite, Prefetch } from "../unit-of-work";
import type { BackchannelLogout } from "./backchannel-logout";

/** A sign-in session of an account: what user tokens and refresh tokens hang on. */
export interface SessionRecord {
  sid: string;
  sub: string;
  clientId: string;
  /** The device the session belongs to (ua_id). */
  uaId?: string;
  /** Digest of the secret half of the session cookie. */
  secretHash: string;
  /** Digest of the current refresh token's secret, and how many times it rotated. */
  refreshHash?: string;
  refreshGeneration?: number;
  scopes?: string[];
  ip?: string;
  userAgent?: string;
  createdAt: number;
  lastUsedAt: number;
  /** The session ends then at the latest. */
  expiresAt: number;
  /** When and how the user proved who they are (OIDC auth_time and amr). */
  authTime?: number;
  amr?: string[];
  /** Sessions opened from a browser session (authorization code): they end with it. */
  browserSid?: string;
  /** The audience of its access tokens (RFC 8707 resource), when not the default. */
  audience?: string;
  /** RFC 9449 5: the key a public client's refresh token is bound to; each refresh proves it. */
  dpopJkt?: string;
  /** Claims userinfo releases beside the scopes' (OIDC Core 5.5 `claims.userinfo`). */
  userinfoClaims?: string[];
  /** The organization its tokens act for: each refresh and userinfo call reads the member's roles again. */
  organization?: string;
  /**
   * Its client's Back-Channel Logout address and ID token algorithm as the session opened:
   * the session's end, seen in the table's stream, is told there with nothing else to read.
   */
  backchannelLogout?: BackchannelLogout;
}

export interface SessionRepository {
  /** A new session, for the commit that opens it. */
  putItem(session: SessionRecord): PendingWrite;
  /** Opens a session on its own (tools that sign a user in without a login flow). */
  open(session: SessionRecord): Promise<void>;
  /** A device record (new or seen again), for the login commit. */
  deviceItem(device: DeviceRecord): PendingWrite;
  /**
   * A user token's session and its account in one read (the session check of every
   * user-mode call); `prefetch`: the route's next read, riding in the same round trip.
   */
  sessionAndAccount<T = never>(
    sub: string,
    sid: string,
    prefetch?: Prefetch<T>,
  ): Promise<{ session?: SessionRecord; account?: Account; prefetched?: T }>;
  /** A stored device, to recognise a returning one at login. */
  device(sub: string, uaId: string): Promise<DeviceRecord | undefined>;
  /**
   * Rotates a session's refresh token only when the presented one is the current one,
   * so each refresh token works once. Returns the session, or why it did not rotate.
   */
  rotateRefresh(
    sub: string,
    sid: string,
    presentedHash: string,
    nextHash: string,
    now: number,
  ): Promise<{ rotated: SessionRecord } | { refused: "unknown" | "reused" }>;
  listDevices(sub: string): Promise<DeviceRecord[]>;
  listSessions(sub: string): Promise<SessionRecord[]>;
  endSession(sub: string, sid: string): Promise<void>;
  /**
   * The user proved who they are again in this session (the account console's
   * re-authentication): its auth_time moves to `now`. False when the session is gone.
   */
  confirmSignIn(sub: string, sid: string, now: number): Promise<boolean>;
  /** The devices and whether the account exists, in one read. */
  devicesOfAccount(sub: string): Promise<{ devices: DeviceRecord[]; accountExists: boolean }>;
  /**
   * Ends the chosen sessions and forgets the chosen devices in one write (nothing for an
   * unknown account); `alsoWrite` adds writes to it given what was ended (a user-mode
   * call's security event). A token of an ended session fails its session check at once.
   */
  endSessionsAndDevices(
    sub: string,
    choose: { session: (s: SessionRecord) => boolean; device: (d: DeviceRecord) => boolean },
    alsoWrite?: (ended: { sessions: number; devices: number }) => PendingWrite[],
  ): Promise<{ sessions: number; devices: number; accountExists: boolean }>;
}

export interface Consent {
  id: string;
  /** Milliseconds since the epoch of the latest grant. */
  updated: number;
  client_id: string;
  scopes: string[];
}

/** Consents (acls): what each application was granted by the user through logins. */
export interface ConsentRepository {
  /** For the login commit: adds the scopes to the application's consent (grants accumulate). */
  grantItem(sub: string, clientId: string, scopes: string[], nowMs: number): PendingWrite;
  list(sub: string): Promise<Consent[]>;
  /** Removes one consent; answers its application, or undefined when there was none. */
  remove(sub: string, id: string): Promise<string | undefined>;
}
