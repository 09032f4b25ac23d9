import { randomBytes } from "node:crypto";
import type { ServiceSettings } from "../../config/settings";
import type { Account } from "../accounts/account";
import type { SecurityEventLog } from "../audit/ports";
import type { ClientRecord } from "../clients/client";
import { hashPassword, needsRehash, type PasswordHash, type StoredPasswordHash } from "../credentials/password-hash";
import { type DeviceRecord, describeUserAgent } from "../devices/device";
import { OAuthError, signInHookFailed } from "../errors";
import { hookAnswer } from "../hooks/fail-closed";
import type { HookRunner } from "../hooks/ports";
import { addedClaims } from "../hooks/token-claims";
import type { Language } from "../messages/ports";
import { type MetricsPort, noMetrics } from "../metrics";
import type { AccessTokenIssuer, IdTokenIssuer } from "../oauth/ports";
import { checkPassword, describeViolation } from "../passwords/policy";
import type { BreachedPasswordCheck } from "../passwords/ports";
import { describeRequested, parseScope, permissionKind } from "../permissions";
import {
  type CodeChannel,
  CodeNotSentError,
  checkSecondFactor,
  type SecondFactorDeps,
  type SecondFactorProof,
  type SecondFactorVerdict,
  sendSecondFactorCode,
} from "../security/second-factor";
import { openSession } from "../sessions/open-session";
import type { ConsentRepository, SessionRecord, SessionRepository } from "../sessions/ports";
import { newRefreshToken } from "../sessions/refresh-token";
import type { PendingWrite } from "../unit-of-work";
import type { LoginRepository, TakenAttempt } from "./ports";
import { askPreSignIn } from "./pre-sign-in";
import { migrateUser, type UserMigrationDeps } from "./user-migration";
import { verifyUserPassword, waitOf } from "./verify-user-password";

export interface LoginDeps {
  logins: LoginRepository;
  sessions: SessionRepository;
  events: SecurityEventLog;
  /** Records what the user granted the application (acls). */
  consents: ConsentRepository;
  accessTokens: AccessTokenIssuer;
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
  now?: () => number;
}

export interface PasswordGrantInput {
  username: unknown;
  password: unknown;
  scope: unknown;
  otp?: unknown;
  /** A recovery code instead of the otp. */
  recoveryCode?: unknown;
  /** A passkey's answer as the second factor (the hosted sign-in page). */
  passkey?: SecondFactorProof["passkey"];
  /** Asks for a sign-in code by e-mail or SMS instead of signing in. */
  otpChannel?: unknown;
  /** The language of a sign-in code's message (default: the service's). */
  language?: Language;
  newPassword?: unknown;
  /** SVC-CI-UA-ID: the device the application already knows. */
  uaId?: string;
  ip: string;
  /**
   * The addresses the guess counts against: the connection's, and the forwarded one when an
   * application that authenticated vouches for it (default: `ip`).
   */
  addresses?: string[];
  userAgent: string;
}

export interface UserTokenResponse {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  scope: string;
  refresh_token: string;
  id_token: string;
}

const WRONG = "invalid username or password";

/** The user permissions asked for, all granted to the client (user tokens carry only those). */
export function userScopes(client: ClientRecord, scope: unknown): string[] {
  if (typeof scope !== "string" || parseScope(scope).length === 0) {
    throw new OAuthError("invalid_scope", "scope is required: one or more space-separated user permissions");
  }
  const requested = parseScope(scope);
  const notUser = requested.filter((s) => permissionKind(s) !== "user");
  if (notUser.length > 0) throw new OAuthError("invalid_scope", `not user permissions: ${describeRequested(notUser)}`);
  const notGranted = requested.filter((s) => !client.scopes.includes(s));
  if (notGranted.length > 0)
    throw new OAuthError("invalid_scope", `not granted to this client: ${describeRequested(notGranted)}`);
  return requested;
}

/** A password sign-in that passed every check: what the login commit needs. */
export interface AuthenticatedUser {
  account: Account;
  newCredential?: NewCredential;
  /** The attempt the guess took: the login's commit gives it back. */
  attempt: TakenAttempt;
  /** How the second factor was proved, when one was required. */
  secondFactor?: Extract<SecondFactorVerdict, { ok: true }>;
  /** Writes the login's commit carries: the rehash of an imported or outdated password hash. */
  loginItems: PendingWrite[];
}

/** The amr of a password sign-in (RFC 8176): the password, and the second factor's own values. */
export function passwordAmr(user: Pick<AuthenticatedUser, "secondFactor">): string[] {
  return user.secondFactor ? ["pwd", ...user.secondFactor.amr, "mfa"] : ["pwd"];
}

/**
 * grant_type=password (docs/architecture.md). Refusals are invalid_grant with a description that
 * says what to do, except that an unknown user and a wrong password read the same.
 */
export async function passwordGrant(
  client: ClientRecord,
  input: PasswordGrantInput,
  deps: LoginDeps,
): Promise<UserTokenResponse> {
  const now = (deps.now ?? (() => Math.floor(Date.now() / 1000)))();
  if (typeof input.username !== "string" || input.username === "" || typeof input.password !== "string") {
    throw new OAuthError("invalid_request", "username and password are required");
  }
  const scopes = userScopes(client, input.scope);
  const user = await authenticateUser(
    client,
    { ...input, username: input.username, password: input.password },
    deps,
    now,
  );
  return signIn(user.account, client, scopes, input, deps, now, user.newCredential, {
    method: "password",
    items: user.loginItems,
    attempt: user.attempt,
    amr: passwordAmr(user),
    factor: user.secondFactor?.method,
  });
}

/**
 * Every check of a password sign-in (the password grant and the hosted pages): throttling,
 * the password, locks, the second factor and a forced change. Refusals are invalid_grant;
 * `OAuthError.reason` names the one a sign-in page answers with a further field.
 */
export async function authenticateUser(
  client: ClientRecord,
  input: Omit<PasswordGrantInput, "scope" | "username" | "password"> & { username: string; password: string },
  deps: LoginDeps,
  now: number,
): Promise<AuthenticatedUser> {
  const verify = () =>
    verifyUserPassword(deps.logins, input.username, input.password, input.addresses ?? [input.ip], now);
  let verdict = await verify();
  // An unknown login may be a user of the old system: once migrated, the same checks run again.
  if (!verdict.ok && verdict.why === "wrong" && !verdict.account && deps.migration) {
    const request = { trigger: "signIn", ...input, clientId: client.clientId } as const;
    if (await hookAnswer(() => migrateUser(deps.migration as UserMigrationDeps, request, now)))
      verdict = await verify();
  }
  if (!verdict.ok) {
    if (verdict.why === "refused") {
      countSignIn(deps, "password", "throttled");
      throw new OAuthError("invalid_grant", verdict.message, "throttled");
    }
    if (verdict.account)
      await recordRefusedSignIn(deps, verdict.account.sub, passwordSignIn(client, input), now, "invalid_credential");
    // An unknown login records no event (no account to file it under) but is the guess stuffing makes most.
    else countSignIn(deps, "password", "invalid_credential");
    throw new OAuthError("invalid_grant", WRONG, "invalid_credential");
  }
  const { account, snapshot, attempt } = verdict;

  // Past the password, refusals may say why: the caller proved to know it. The hour's and
  // the address's counts go back; the consecutive one stays, so a caller who knows the
  // password cannot clear the wait its wrong codes earned.
  const refuse = async (why: string, code: string): Promise<OAuthError> => {
    await deps.logins.giveBack(attempt, false);
    await deps.logins.settleFailure(attempt, waitOf(attempt, now));
    await recordRefusedSignIn(deps, account.sub, passwordSignIn(client, input), now, code);
    return new OAuthError("invalid_grant", why, code);
  };
  if (account.locked) throw await refuse("the account is locked", "account_locked");
  if (account.state?.name === "inactivityLock")
    throw await refuse("the account is locked for inactivity", "inactivity_lock");
  if (account.methodsLocked?.includes("password"))
    throw await refuse("password login is locked for this account", "method_locked");
  const decision = await askPreSignIn(deps.hooks, {
    clientId: client.clientId,
    sub: account.sub,
    method: "password",
    ip: input.ip,
    userAgent: input.userAgent,
  });
  if (!decision.allowed && decision.why === "failed") {
    await refuse("a sign-in check could not be completed", "hook_failed");
    throw signInHookFailed();
  }
  // A refusal is no login: counted and recorded as the other refusals past the password are.
  if (!decision.allowed) throw await refuse(decision.message ?? "the sign-in was refused", "sign_in_refused");
  let secondFactor: AuthenticatedUser["secondFactor"];
  if (account.requiredFactor === 2) {
    const proof = { otp: filled(input.otp), recoveryCode: filled(input.recoveryCode), passkey: input.passkey };
    if (!proof.otp && !proof.recoveryCode && !proof.passkey) {
      const channel = input.otpChannel === "email" || input.otpChannel === "sms" ? input.otpChannel : undefined;
      if (!channel) throw await refuse("a second factor is required: send otp or recovery_code", "otp_required");
      throw await refuse(...(await sentCode(deps, account, channel, input.language, now)));
    }
    const context = { cId: client.clientId, ip: input.ip, ua: input.userAgent };
    const verdict = deps.secondFactor
      ? await checkSecondFactor(deps.secondFactor, account, proof, context, now)
      : ({ ok: false, why: "invalid" } as const);
    if (!verdict.ok) {
      // A wrong code is a failure like a wrong password: its attempt stays taken, so the waits and caps cover codes too.
      await deps.logins.settleFailure(attempt, waitOf(attempt, now));
      await recordRefusedSignIn(deps, account.sub, passwordSignIn(client, input), now, "otp_invalid");
      const what = proof.passkey ? "passkey" : proof.recoveryCode ? "recovery_code" : "otp";
      throw new OAuthError("invalid_grant", `the ${what} is not valid`, "otp_invalid");
    }
    secondFactor = verdict;
  }
  let newCredential: NewCredential | undefined;
  if (account.needPasswordChange) {
    if (typeof input.newPassword !== "string" || input.newPassword === "") {
      throw await refuse("a password change is required: send new_password", "password_change_required");
    }
    try {
      newCredential = await changedCredential(account, input.password, input.newPassword as string, snapshot, deps);
    } catch (error) {
      await deps.logins.giveBack(attempt, false);
      await deps.logins.settleFailure(attempt, waitOf(attempt, now));
      throw error;
    }
  }
  return {
    account,
    newCredential,
    attempt,
    secondFactor,
    loginItems: await rehashItems(account, input.password, snapshot, newCredential, deps),
  };
}

/**
 * A foreign hash (import) or one with outdated parameters is replaced by our scrypt hash of
 * the password just proved, in the login's commit and only if no change came between.
 */
async function rehashItems(
  account: Account,
  password: string,
  snapshot: Awaited<ReturnType<LoginRepository["snapshot"]>>,
  newCredential: NewCredential | undefined,
  deps: LoginDeps,
): Promise<PendingWrite[]> {
  const stored = snapshot.credential;
  // A forced change writes a new hash anyway: two writes of one item cannot share a commit.
  if (!stored || newCredential || !needsRehash(stored)) return [];
  return [deps.logins.rehashItem(account.sub, await hashPassword(password), stored)];
}

const filled = (value: unknown): string | undefined => (typeof value === "string" && value !== "" ? value : undefined);

/** Sends a sign-in code; answers the refusal that tells where it went, or why it did not. */
async function sentCode(
  deps: LoginDeps,
  account: Account,
  channel: CodeChannel,
  language: Language | undefined,
  now: number,
): Promise<[string, string]> {
  if (!deps.secondFactor) return ["codes by e-mail or SMS are not available", "otp_channel_unavailable"];
  try {
    const sent = await sendSecondFactorCode(
      deps.secondFactor,
      account,
      channel,
      language ?? deps.settings.defaultLanguage,
      now,
    );
    return [`a code was sent by ${channel === "email" ? "e-mail" : "SMS"} to ${sent.to}: send it as otp`, "otp_sent"];
  } catch (error) {
    if (error instanceof CodeNotSentError) return [error.message, error.reason];
    throw error;
  }
}

async function changedCredential(
  account: Account,
  current: string,
  next: string,
  snapshot: Awaited<ReturnType<LoginRepository["snapshot"]>>,
  deps: LoginDeps,
) {
  const policy = deps.settings.passwordPolicy;
  const history = snapshot.credential?.history ?? [];
  const violations = await checkPassword(next, policy, {
    identity: { sub: account.sub, email: account.email?.value, phone: account.phone_number?.value },
    currentPassword: current,
    history,
    breachedPasswords: deps.breachedPasswords,
  });
  if (violations.length > 0) {
    throw new OAuthError(
      "invalid_grant",
      `new_password: ${violations.map(describeViolation).join("; ")}`,
      "password_policy",
      violations,
    );
  }
  const {
    history: _old,
    changedAt: _at,
    ...currentHash
  } = snapshot.credential as NonNullable<typeof snapshot.credential>;
  return {
    hash: await hashPassword(next),
    history: [currentHash as StoredPasswordHash, ...history].slice(0, Math.max(policy.historyDepth, 0)),
  };
}

const passwordSignIn = (client: ClientRecord, input: Pick<PasswordGrantInput, "ip" | "userAgent">) => ({
  clientId: client.clientId,
  method: "password",
  ip: input.ip,
  userAgent: input.userAgent,
});

/** A sign-in the user did not get, by any method: counted, and recorded as a login event of the account. */
export async function recordRefusedSignIn(
  deps: Pick<LoginDeps, "events" | "metrics">,
  sub: string,
  login: { clientId: string; method: string; ip?: string; userAgent?: string },
  now: number,
  result: string,
): Promise<void> {
  countSignIn(deps, login.method, result);
  await deps.events.record({
    sbj: sub,
    ts: now * 1000,
    type: "login",
    cId: login.clientId,
    ip: login.ip,
    ua: login.userAgent,
    result,
    prms: { method: login.method },
  });
}

/** Results that are guesses refused: a spike of them is the credential-stuffing signal alarmed on. */
const FAILED_SIGN_INS = new Set(["invalid_credential", "otp_invalid", "throttled"]);

/** Counted beside each login event (and the refusals that record none), by method and result. */
export function countSignIn(deps: Pick<LoginDeps, "metrics">, method: string, result: string): void {
  const metrics = deps.metrics ?? noMetrics;
  metrics.count("SignIn", { method, result });
  if (FAILED_SIGN_INS.has(result)) metrics.count("SignInFailed");
  if (result === "throttled") metrics.count("SignInThrottled", { method });
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
}

/**
 * One transaction: session, device, profile state, counters, consent, event (and a new
 * password, and whatever the sign-in flow must consume in the same breath, like a QR code).
 * Answers the session, its device and its secret (refresh token or cookie).
 */
export async function recordLogin(
  account: Account,
  login: LoginRecord,
  input: Pick<PasswordGrantInput, "uaId" | "ip" | "userAgent">,
  deps: LoginDeps,
  now: number,
  newCredential: NewCredential | undefined,
  flow: LoginFlow,
): Promise<{ session: SessionRecord; uaId: string; refreshToken?: string; cookieSecret?: string }> {
  const known = input.uaId ? await deps.sessions.device(account.sub, input.uaId) : undefined;
  const uaId = known?.id ?? randomBytes(12).toString("base64url");
  const device: DeviceRecord = {
    ...describeUserAgent(input.userAgent),
    id: uaId,
    subjectId: account.sub,
    userAgent: input.userAgent,
    latestIp: input.ip,
    createdAt: known?.createdAt ?? now,
    lastUsed: now,
    newlyCreated: !known,
    trusted: known?.trusted ?? false,
  };
  const opened = openSession({
    sub: account.sub,
    clientId: login.sessionClientId,
    ip: input.ip,
    userAgent: input.userAgent,
    now,
    ttlSeconds: login.ttlSeconds ?? deps.settings.tokens.refreshTtlSeconds,
  });
  const refresh = login.refresh ? newRefreshToken(account.sub, opened.record.sid) : undefined;
  const session: SessionRecord = {
    ...opened.record,
    uaId,
    ...(login.scopes && { scopes: login.scopes }),
    ...(refresh && { refreshHash: refresh.hash, refreshGeneration: 0 }),
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
      type: "login",
      cId: login.clientId,
      ip: input.ip,
      ua: input.userAgent,
      sid: session.sid,
      result: "ok",
      prms: {
        method: flow.method,
        ...(flow.factor && { factor: flow.factor }),
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
    ip: input.ip,
    userAgent: input.userAgent,
  });
  return {
    session,
    uaId,
    refreshToken: refresh?.token,
    cookieSecret: refresh ? undefined : opened.cookie.value,
  };
}

/** A sign-in straight to tokens (password and QR grants): the login commit, then the tokens. */
export async function signIn(
  account: Account,
  client: ClientRecord,
  scopes: string[],
  input: Pick<PasswordGrantInput, "uaId" | "ip" | "userAgent">,
  deps: LoginDeps,
  now: number,
  newCredential: NewCredential | undefined,
  flow: LoginFlow = { method: "password", items: [] },
): Promise<UserTokenResponse> {
  // Asked before the login is committed, so a failed hook leaves no session behind.
  const request = {
    clientId: client.clientId,
    grant: flow.method === "qr" ? "qr" : "password",
    sub: account.sub,
    scopes,
  } as const;
  const added = await hookAnswer(() => addedClaims(deps.hooks, request));
  const { session, uaId, refreshToken } = await recordLogin(
    account,
    {
      sessionClientId: client.clientId,
      clientId: client.clientId,
      scopes,
      amr: flow.amr ?? (flow.method === "password" ? ["pwd"] : [flow.method]),
      refresh: true,
    },
    input,
    deps,
    now,
    newCredential,
    flow,
  );
  const { accessTtlSeconds } = deps.settings.tokens;
  const { token } = await deps.accessTokens.issue({
    sub: account.sub,
    clientId: client.clientId,
    scopes,
    ttlSeconds: accessTtlSeconds,
    sid: session.sid,
    uaId,
    extraClaims: added.access,
  });
  return {
    access_token: token,
    token_type: "Bearer",
    expires_in: accessTtlSeconds,
    scope: scopes.join(" "),
    refresh_token: refreshToken as string,
    id_token: await deps.idToken({
      sub: account.sub,
      clientId: client.clientId,
      sid: session.sid,
      uaId,
      authTime: now,
      claims: added.id,
    }),
  };
}
