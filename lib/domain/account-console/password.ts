import { ApiError } from "../errors";
import type { Language } from "../messages/ports";
import type { LiveBrowserSession } from "../oidc/browser-session";
import { changePassword, type PasswordChangeDeps } from "../passwords/change-password";
import type { ConsoleActor } from "./sign-in-methods";

/** What the password section shows: whether there is one, since when, and the policy's length. */
export interface PasswordView {
  hasPassword: boolean;
  /** Unix time the stored credential was set (a change, a reset, the registration). */
  changedAt?: number;
  minLength: number;
}

/**
 * The account console's password (docs/account/password.md): the management API's change
 * (interface §4.1) in user mode, where the console's re-authentication within 10 minutes
 * stands for the current password. The policy, the history, the `password_change` event in
 * the same transaction and the e-mail notice are the API's; sessions on other devices end
 * only when the user asks, this browser's device kept as `SVC-CI-UA-ID` keeps one.
 */
export function consolePasswordUseCases(deps: PasswordChangeDeps) {
  return {
    async view(sub: string): Promise<PasswordView> {
      const { credential } = await deps.logins.accountSnapshot(sub);
      return {
        hasPassword: credential !== undefined,
        ...(credential?.changedAt !== undefined && { changedAt: credential.changedAt }),
        minLength: deps.settings.passwordPolicy.minLength,
      };
    },

    /**
     * Throws the API's refusals (password_policy_violated, or wrong_values for several rules),
     * each recorded as the API records a refused call: the event's result is the refusal's code.
     */
    async change(
      browser: LiveBrowserSession,
      input: { password: string; signOutOthers: boolean },
      language: Language,
      actor: ConsoleActor,
    ): Promise<void> {
      const { cId, ip, ua, sid } = actor;
      const sub = browser.account.sub;
      try {
        await changePassword(
          {
            sub,
            mode: "user",
            reauthenticated: true,
            password: input.password,
            resetSessions: input.signOutOthers,
            keepUaId: browser.session.uaId,
            language,
            event: { cId, ip, ua, sid },
          },
          deps,
        );
      } catch (error) {
        if (error instanceof ApiError)
          await deps.events.record({ ...actor, sbj: sub, type: "password_change", result: error.error });
        throw error;
      }
    },
  };
}

export type ConsolePasswordUseCases = ReturnType<typeof consolePasswordUseCases>;
