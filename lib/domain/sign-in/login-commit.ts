import { randomBytes } from "node:crypto";
import type { ServiceSettings } from "../../config/settings";
import type { Account } from "../accounts/account";
import type { SecurityEventLog } from "../audit/ports";
import { SIGN_IN_EVENT } from "../audit/security-event";
import type { PasswordHash, StoredPasswordHash } from "../credentials/password-hash";
import { type DeviceRecord, userAgentDescriber } from "../devices/device";
import { OAuthError } from "../errors";
import type { HookRunner } from "../hooks/ports";
import type { LoginRepository, TakenAttempt } from "../login/ports";
import type { UserMigrationDeps } from "../login/user-migration";
import type { MetricsPort } from "../metrics";
import type { AccessTokenIssuer, IdTokenIssuer } from "../oauth/ports";
import type { OrganizationRoles } from "../oidc/organization";
import type { SsoEnforcementDeps } from "../organizations/sso-enforcement";
import type { BreachedPasswordCheck } from "../passwords/ports";
import type { RightRepository } from "../rights/ports";
import type { SecondFactorDeps } from "../security/second-factor";
import type { BackchannelLogout } from "../sessions/backchannel-logout";
import { openSession } from "../sessions/open-session";
import type { ConsentRepository, SessionRecord, SessionRepository } from "../sessions/ports";
import { newRefreshToken } from "../sessions/refresh-token";
import type { PendingWrite } from "../unit-of-work";
import { countSignIn } from "./refusals";

/** What a sign-in needs, whatever its way in: the login's writes, events, hooks and tokens. */
export interface LoginDeps {
  logins: LoginRepository;
  sessions: SessionRepository;
  events: SecurityEventLog;
  /** Records what the user granted the application (acls). */
  consents: ConsentRepository;
  accessTokens: AccessTokenIssuer;
  /** The key a DPoP proof at the token endpoint showed (RFC 9449): its tokens are bound to it. */
  dpopKey?: string;
  idToken: IdTokenIssuer;
  settings: ServiceSettings;
  /** Unset: new passwords (a forced change) are not looked up among breached ones. */
  breachedPasswords?: BreachedPasswordCheck;
  /** Checks second factors and sends sign-in codes; absent, every second factor is refused. */
  secondFactor?: SecondFactorDeps;
  /** The extension hooks (preSignIn, postSignIn, preTokenIssue); unset: none. */
  hooks?: HookRunner;
  /** Creates accounts the userMigration hook vouches for; unset: no migration. */
  migration?: UserMigrationDeps;
  /** Counts sign-ins by method and result; unset: not counted. */
  metrics?: MetricsPort;
  /** The admin console's operators hold their authority as rights; unset: the console gets no tokens. */
  rights?: Pick<RightRepository, "readGrants">;
  /** Verified domains whose organizations enforce their single sign-on; unset: none is enforced. */
  ssoEnforcement?: SsoEnforcementDeps;
  /** Members' roles for tokens that name an organization; unset: no token can name one. */
  organizationRoles?: OrganizationRoles;
  now?: () => number;
}

/** Where the login comes from: the device the caller already knows, its address and browser. */
export interface LoginOrigin {
  /** SVC-CI-UA-ID, or the hosted pages' device cookie. */
  uaId?: string;
  ip: string;
  userAgent: string;
}

/** What opens a session at a sign-in, beside the account and the device's address and browser. */
export interface LoginRecord {
  /** The session's application: the one tokens are issued to, or the hosted pages' own. */
  sessionClientId: string;
  /** The application the user signed in for (security event, consent). */
  clientId: string;
  /** Permissions granted to the application and recorded as its consent; none for a browser session. */
  scopes?: string[];
  /** How the user proved who they are (OIDC amr values). */
  amr: string[];
  /** A refresh token for the session; a browser session carries a cookie secret instead. */
  refresh: boolean;
  /** Default: the refresh token lifetime. */
  ttlSeconds?: number;
  /** The application's Back-Channel Logout, kept with its session. */
  backchannelLogout?: BackchannelLogout;
}

/** A new password set in the login (a forced change), with its history. */
export type NewCredential = { hash: PasswordHash; history: StoredPasswordHash[] };

/** What a sign-in flow adds to the login's commit. */
export interface LoginFlow {
  method: string;
  items: PendingWrite[];
  /** False when the login's own read found no failure record: nothing to forget, one item less. */
  failuresOnRecord?: boolean;
  /** A password guess's attempt, given back in the commit. */
  attempt?: TakenAttempt;
  /** The session's amr, when the method alone does not tell it. */
  amr?: string[];
  /** The second factor's method, for the login event. */
  factor?: string;
  /** The organization whose single sign-on vouched, for the login event. */
  orgId?: string;
}

export interface OpenedLogin {
  session: SessionRecord;
  uaId: string;
  refreshToken?: string;
  cookieSecret?: string;
}

/**
 * The login commit. One transaction: session, device, profile state, counters, consent,
 * event (and a new password, and whatever the sign-in flow must consume in the same breath,
 * like a QR code). Answers the session, its device and its secret (refresh token or cookie).
 */
export async function recordLogin(
  account: Account,
  login: LoginRecord,
  origin: LoginOrigin,
  deps: LoginDeps,
  now: number,
  newCredential: NewCredential | undefined,
  flow: LoginFlow,
): Promise<OpenedLogin> {
  const known = origin.uaId ? await deps.sessions.device(account.sub, origin.uaId) : undefined;
  const describeUserAgent = await userAgentDescriber();
  const uaId = known?.id ?? randomBytes(12).toString("base64url");
  const device: DeviceRecord = {
    ...describeUserAgent(origin.userAgent),
    id: uaId,
    subjectId: account.sub,
    userAgent: origin.userAgent,
    latestIp: origin.ip,
    createdAt: known?.createdAt ?? now,
    lastUsed: now,
    newlyCreated: !known,
    trusted: known?.trusted ?? false,
  };
  const opened = openSession({
    sub: account.sub,
    clientId: login.sessionClientId,
    ip: origin.ip,
    userAgent: origin.userAgent,
    now,
    ttlSeconds: login.ttlSeconds ?? deps.settings.tokens.refreshTtlSeconds,
  });
  const refresh = login.refresh ? newRefreshToken(account.sub, opened.record.sid) : undefined;
  const session: SessionRecord = {
    ...opened.record,
    uaId,
    ...(login.scopes && { scopes: login.scopes }),
    ...(refresh && { refreshHash: refresh.hash, refreshGeneration: 0 }),
    ...(login.backchannelLogout && { backchannelLogout: login.backchannelLogout }),
    authTime: now,
    amr: login.amr,
  };
  const untouchable = account.state?.name === "untouchable";
  const items = [
    untouchable
      ? deps.logins.touchItem(account.sub, now, Boolean(newCredential))
      : deps.logins.loginRecordedItem(account.sub, now, Boolean(newCredential)),
    deps.sessions.putItem(session),
    deps.sessions.deviceItem(device),
    ...(flow.attempt
      ? deps.logins.giveBackItems(flow.attempt)
      : flow.failuresOnRecord === false
        ? []
        : [deps.logins.clearFailuresItem(account.sub)]),
    ...(login.scopes ? [deps.consents.grantItem(account.sub, login.clientId, login.scopes, now * 1000)] : []),
    deps.events.putItem({
      sbj: account.sub,
      ts: now * 1000,
      type: SIGN_IN_EVENT,
      cId: login.clientId,
      ip: origin.ip,
      ua: origin.userAgent,
      sid: session.sid,
      result: "ok",
      prms: {
        method: flow.method,
        ...(flow.factor && { factor: flow.factor }),
        ...(flow.orgId && { org: flow.orgId }),
        ...(login.scopes && { scopes: login.scopes }),
        ...(newCredential && { passwordChanged: true }),
      },
    }),
    ...flow.items,
  ];
  if (newCredential)
    items.push(deps.logins.credentialItem(account.sub, newCredential.hash, now, newCredential.history));
  // Refused only if the account vanished or changed state in this very moment.
  if (!(await deps.logins.commit(items)))
    throw new OAuthError("invalid_grant", "the account changed during login; try again");
  countSignIn(deps, flow.method, "ok");
  // Told after the commit; it never undoes the login and its failures are retried behind the answer.
  await deps.hooks?.notify("postSignIn", {
    clientId: login.clientId,
    sub: account.sub,
    method: flow.method,
    sid: session.sid,
    ip: origin.ip,
    userAgent: origin.userAgent,
  });
  return {
    session,
    uaId,
    refreshToken: refresh?.token,
    cookieSecret: refresh ? undefined : opened.cookie.value,
  };
}
