import type { ClientRepository } from "../clients/ports";
import { problems } from "../errors";
import type { LoginRepository } from "../login/ports";
import { verifyUserPassword, waitOf } from "../login/verify-user-password";
import { liveBrowserSession } from "../oidc/browser-session";
import type { SessionRepository } from "../sessions/ports";
import { type BindDeps, type BindStart, completeBind, confirmBind, type ProviderAnswer, startBind } from "./bind";
import { currentTokens } from "./fed-tokens";
import { linkAccount, listLinks, unlinkAccount } from "./links";
import type { FederationRepository } from "./ports";
import { findProvider } from "./providers";

export interface FederationDeps extends BindDeps {
  federation: FederationRepository;
  clients: Pick<ClientRepository, "get">;
  /** The browser's hosted sign-in session, which vouches for a bind's owner. */
  sessions: SessionRepository;
  /** The owner's password, when no session vouches. */
  logins: LoginRepository;
  /** fedToken.minLifetimeSeconds: a stored token with less left is refreshed first. */
  minLifetimeSeconds: number;
  sleep: (ms: number) => Promise<void>;
}

/** One link to an external account: the account, the configured provider, the account id there. */
export interface LinkRef {
  sub: string;
  fpType: string;
  fpName: string;
  sid: string;
}

/** An application asking for stored external tokens, and the permissions that open the call. */
export interface TokenCaller {
  clientId: string;
  scopes: ReadonlySet<string>;
  accepted: readonly string[];
}

export type FederationUseCases = ReturnType<typeof federationUseCases>;

const nowSeconds = () => Math.floor(Date.now() / 1000);

/**
 * Whether `password` is the account's, as for any password login, and the account may sign
 * in by it alone: a password does not vouch for an account that needs two factors.
 */
async function passwordVouches(deps: FederationDeps, sub: string, password: string, ip: string): Promise<boolean> {
  const verdict = await verifyUserPassword(deps.logins, sub, password, [ip], nowSeconds());
  if (!verdict.ok || verdict.account.sub !== sub) return false;
  const { account, attempt } = verdict;
  const refused =
    account.locked ||
    account.state?.name === "inactivityLock" ||
    account.methodsLocked?.includes("password") ||
    account.requiredFactor === 2;
  await deps.logins.giveBack(attempt, !refused);
  if (refused) await deps.logins.settleFailure(attempt, waitOf(attempt, nowSeconds()));
  return !refused;
}

/** Links to external accounts (interface §4.9): by a known id, by the bind flow, and their stored tokens. */
export function federationUseCases(deps: FederationDeps) {
  return {
    /** `knownAccount`: the caller's own account, read with the session check. */
    links: (sub: string, knownAccount: boolean) => listLinks(deps.federation, sub, knownAccount),

    link: (link: LinkRef & { userName?: string }) => linkAccount(deps.federation, deps.providers, link, nowSeconds()),

    unlink: (link: LinkRef) => unlinkAccount(deps.federation, link),

    /** Where the user's browser goes: the provider's authorization URL. */
    startBind: (input: BindStart) => startBind(deps, input, nowSeconds()),

    /** The provider's answer at our callback; `sessionCookie`: the browser's hosted sign-in session. */
    async completeBind(answer: ProviderAnswer, sessionCookie: string | undefined) {
      const browser = await liveBrowserSession(deps.sessions, sessionCookie, nowSeconds());
      return completeBind(deps, answer, browser?.account.sub, nowSeconds());
    },

    /**
     * The owner confirms a waiting link with the account's password; failed passwords count as
     * failed logins from `ip`. Where the browser goes next; undefined for a forged, used or expired one.
     */
    confirmBind: (confirmation: string, password: string, ip: string) =>
      confirmBind(deps, confirmation, (sub) => passwordVouches(deps, sub, password, ip), nowSeconds()),

    /** interface §4.9 fedToken: the application must still hold what its token carries. */
    async externalTokens(caller: TokenCaller, sub: string, fpType: string, fpName: string) {
      const provider = findProvider(deps.providers, fpType, fpName);
      if (!provider) throw problems.badAccessToken("unknown_provider");
      if (!provider.rememberTokens) throw problems.badAccessToken("provider_does_not_remember_tokens");
      // Both reads at once: the tokens are only used once the grant is confirmed.
      const [client, stored, tokenKey] = await Promise.all([
        deps.clients.get(caller.clientId),
        deps.federation.tokens(sub, provider.type, provider.name),
        deps.tokenKey(),
      ]);
      const granted = caller.accepted.some((p) => caller.scopes.has(p) && client?.scopes.includes(p));
      if (!granted) throw problems.badAccessToken("permission_not_granted_to_application");
      const { federation, minLifetimeSeconds, sleep, log } = deps;
      return currentTokens({ federation, provider, tokenKey, minLifetimeSeconds, now: nowSeconds, sleep, log }, stored);
    },
  };
}
