import type { Account } from "../accounts/account";
import type { SecurityEventLog } from "../audit/ports";
import type { SecurityEvent } from "../audit/security-event";
import type { ClientCredentialSource, ClientWithSecrets } from "../clients/credential-cache";
import { secretMatches } from "../credentials/secret-digest";
import { problems } from "../errors";
import { hashGate } from "../login/hash-gate";
import type { LoginRepository } from "../login/ports";
import { verifyUserPassword, waitOf } from "../login/verify-user-password";
import { checkPresentation, type DpopDeps, DpopError, type TokenPresentation } from "../oauth/dpop";
import type { AccessTokenClaims } from "../oauth/ports";
import { type OperatorRole, operatorGrants, roleFrom } from "../operators/operator";
import { mustUseOrgSso, type SsoEnforcementDeps } from "../organizations/sso-enforcement";
import type { RightRepository } from "../rights/ports";
import { organizationOfToken } from "../scim/connection";
import type { ScimRepository } from "../scim/ports";
import type { SessionRepository } from "../sessions/ports";
import { rehashItems } from "../sign-in/password-change";
import type { Prefetch } from "../unit-of-work";

/** What the request pipeline asks before a route runs: who calls, and whether they still may. */
export interface CallerCheckDeps {
  accessTokens: { verify(token: string): Promise<AccessTokenClaims> };
  /** DPoP-bound tokens' proofs (RFC 9449 7); a resource asks no nonce. */
  dpop: Omit<DpopDeps, "nonces">;
  /** Starts reading the signing keys, so a cold container's first token check waits less. */
  warmKeys(): void;
  clientCredentials: ClientCredentialSource;
  sessions: Pick<SessionRepository, "sessionAndAccount">;
  logins: LoginRepository;
  events: Pick<SecurityEventLog, "record">;
  /** The admin console's operators hold their authority as rights (lib/domain/operators). */
  rights: Pick<RightRepository, "heldPrefetch">;
  /** Verified domains whose organizations enforce their single sign-on: their people get no Basic login. */
  ssoEnforcement?: SsoEnforcementDeps;
  log: { info(message: string, fields?: Record<string, unknown>): void };
  /** SCIM tokens (docs/scim.md): only the scim function is handed them. */
  scimTokens?: Pick<ScimRepository, "orgOfToken">;
}

export type CallerChecks = ReturnType<typeof callerChecks>;

// Nobody vouches for HTTP Basic user callers: one of their hashes at a time per process,
// so a flood of them leaves the other hashing threads to logins an application relays.
const strangers = hashGate(1);

export function callerChecks(deps: CallerCheckDeps) {
  return {
    warmKeys: deps.warmKeys,

    /** An access token's claims, presented as its binding asks; a bad or expired token throws bad_access_token. */
    async accessToken(token: string, presented: TokenPresentation): Promise<AccessTokenClaims> {
      const claims = await deps.accessTokens.verify(token);
      try {
        await checkPresentation(deps.dpop, token, claims.cnf, presented, Math.floor(Date.now() / 1000));
      } catch (error) {
        if (error instanceof DpopError)
          throw problems.badAccessToken(error.message, { scheme: "DPoP", error: error.code });
        throw error;
      }
      return claims;
    },

    /**
     * The application whose REST password this is (interface §5.4), compared as a SHA-256
     * digest: no password hash per call.
     */
    async applicationByRestPassword(id: string, secret: string): Promise<ClientWithSecrets> {
      const client = await deps.clientCredentials.getWithSecrets(id);
      if (!client || !secretMatches(secret, client.restPasswordHash)) {
        throw problems.badAccessToken("invalid_rest_password");
      }
      return client;
    },

    /**
     * The account whose own login and password these are (HTTP Basic on `current` routes):
     * a password guess like a login, so the same counters and waits apply. Accounts that
     * need a second factor or a new password must use a token: Basic cannot carry either.
     */
    async userByPassword(login: string, password: string, ip: string, now: number): Promise<Account> {
      const verdict = await verifyUserPassword(deps.logins, login, password, [ip], now, strangers);
      if (!verdict.ok) {
        const busy = verdict.why === "refused" && verdict.busy;
        deps.log.info("user password refused", { why: busy ? "busy" : verdict.why });
        if (verdict.why === "wrong") throw problems.invalidCredential("wrong login or password");
        throw busy ? problems.tooManyAttempts(verdict.message) : problems.invalidCredential(verdict.message);
      }
      const { account, attempt } = verdict;
      const refusal =
        account.locked || account.state?.name === "inactivityLock" || account.methodsLocked?.includes("password")
          ? "password login is not allowed for this account"
          : account.requiredFactor === 2
            ? "a second factor is required: HTTP Basic cannot carry it; use a user access token"
            : account.needPasswordChange
              ? "a password change is required: HTTP Basic cannot carry it; use a user access token"
              : (await mustUseOrgSso(deps.ssoEnforcement, account))
                ? "the organization's sign-in must be used"
                : undefined;
      if (refusal) {
        await deps.logins.giveBack(attempt, false);
        await deps.logins.settleFailure(attempt, waitOf(attempt, now));
        throw problems.invalidCredential(refusal);
      }
      // A foreign or outdated hash becomes ours with the give-back, so its cost is paid once.
      const rehash = await rehashItems(account, password, verdict.snapshot, deps);
      // A hash replaced meanwhile refuses the rehash's condition: the give-back then goes alone.
      const done = rehash.length > 0 && (await deps.logins.commit([...deps.logins.giveBackItems(attempt), ...rehash]));
      if (!done) await deps.logins.giveBack(attempt, true);
      return account;
    },

    /**
     * A user token is only as alive as its session: ended sessions and locked accounts
     * refuse it at once, not at its expiry. One read fetches the session, the account and
     * the route's prefetch together.
     */
    async liveSession<T>(
      sub: string,
      sid: string,
      prefetch: Prefetch<T> | undefined,
      now: number,
    ): Promise<{ account: Account; prefetched?: T }> {
      const { session, account, prefetched } = await deps.sessions.sessionAndAccount(sub, sid, prefetch);
      if (!session || session.expiresAt <= now || !account) throw problems.badAccessToken("session_ended");
      if (account.locked || account.state?.name === "inactivityLock") throw problems.badAccessToken("account_locked");
      return { account, prefetched };
    },

    /**
     * An admin console operator's standing: the session as for any user token, and the
     * operator's grants in the same BatchGetItem, so an ended session or a revoked right
     * refuses the very next call for one round trip.
     */
    async liveOperator(sub: string, sid: string, now: number): Promise<{ role: OperatorRole; authTime: number }> {
      const grants = deps.rights.heldPrefetch(operatorGrants(sub));
      const { session, account, prefetched } = await deps.sessions.sessionAndAccount(sub, sid, grants);
      const role = prefetched && roleFrom(sub, prefetched);
      if (!session || session.expiresAt <= now || !account) throw problems.badAccessToken("session_ended");
      if (account.locked || account.state?.name === "inactivityLock") throw problems.badAccessToken("account_locked");
      if (!role) throw problems.badAccessToken("not_an_operator");
      return { role, authTime: session.authTime ?? session.createdAt };
    },

    /** The organization a SCIM token stands for; any other bearer value is bad_access_token. */
    async scimOrganization(token: string): Promise<string> {
      const orgId = deps.scimTokens && (await organizationOfToken(deps.scimTokens, token));
      if (!orgId) throw problems.badAccessToken("invalid_scim_token");
      return orgId;
    },

    /** The security event of a user-mode call (interface §6). */
    recordCall: (event: SecurityEvent) => deps.events.record(event),
  };
}
