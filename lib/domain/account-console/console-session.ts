import type { AuthenticationResponseJSON } from "@simplewebauthn/server";
import type { LoginRepository } from "../login/ports";
import { verifyUserPassword } from "../login/verify-user-password";
import { type LiveBrowserSession, liveBrowserSession } from "../oidc/browser-session";
import { authenticationOptions, type PasskeyDeps, passkeySecondFactor } from "../passkeys/passkeys";
import type { SessionRepository } from "../sessions/ports";

/**
 * Who uses the account console (docs/account.md): the hosted browser session, and its
 * re-authentication. Sensitive changes (password, sign-in methods, contacts, deleting the
 * account) need a sign-in or a re-authentication within the last 10 minutes, by the
 * password or a passkey of the account; re-authenticating moves the session's auth_time.
 */

export const RECENT_SIGN_IN_SECONDS = 600;

export const signedInAt = (browser: LiveBrowserSession) => browser.session.authTime ?? browser.session.createdAt;

export const signedInRecently = (browser: LiveBrowserSession, now: number) =>
  now - signedInAt(browser) <= RECENT_SIGN_IN_SECONDS;

export interface ConsoleSessionDeps {
  sessions: SessionRepository;
  logins: LoginRepository;
  passkeys: PasskeyDeps;
}

export function consoleSessionUseCases(deps: ConsoleSessionDeps) {
  const confirmed = (browser: LiveBrowserSession, now: number) =>
    deps.sessions.confirmSignIn(browser.account.sub, browser.session.sid, now);
  return {
    /** The signed-in browser the cookie names, when its session and account are usable. */
    current: (cookie: string | undefined, now: number) => liveBrowserSession(deps.sessions, cookie, now),

    /** Options for a passkey of any kind; the answer must then be one of this account's passkeys. */
    passkeyOptions: (binding: string) => authenticationOptions(deps.passkeys, binding),

    /** The account's password again, counted like any password guess (throttled, locked out alike). */
    async confirmWithPassword(
      browser: LiveBrowserSession,
      password: string,
      addresses: string[],
      now: number,
    ): Promise<boolean> {
      const sub = browser.account.sub;
      const verdict = await verifyUserPassword(deps.logins, sub, password, addresses, now);
      if (!verdict.ok || verdict.account.sub !== sub) return false;
      await deps.logins.giveBack(verdict.attempt, true);
      return confirmed(browser, now);
    },

    /** One of the account's passkeys, user verified, answering a challenge bound to this page. */
    async confirmWithPasskey(
      browser: LiveBrowserSession,
      response: AuthenticationResponseJSON,
      binding: string,
      now: number,
    ): Promise<boolean> {
      const proved = await passkeySecondFactor(deps.passkeys, browser.account.sub, { response, binding });
      return proved && confirmed(browser, now);
    },
  };
}

export type ConsoleSessionUseCases = ReturnType<typeof consoleSessionUseCases>;
