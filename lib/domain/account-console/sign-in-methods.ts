import type { RegistrationResponseJSON } from "@simplewebauthn/server";
import type { Account } from "../accounts/account";
import type { SecurityEventLog } from "../audit/ports";
import type { SecurityEvent } from "../audit/security-event";
import type { Courier, Language } from "../messages/ports";
import { addPasskey, deletePasskey, type PasskeyDeps, registrationOptions, renamePasskey } from "../passkeys/passkeys";
import type { AccountSecurityUseCases } from "../security/account-security";
import {
  type EventContext,
  generateRecoveryCodes,
  type RecoveryCodeDeps,
  recoveryCodeStatus,
} from "../security/recovery-codes";
import { codeContact, type SecondFactorDeps } from "../security/second-factor";
import type { TotpUseCases } from "../security/totp-management";

import { sendSecurityNotice } from "./security-notice";

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** Who made a change from the console, for its security event. */
export type ConsoleActor = Omit<SecurityEvent, "type" | "result" | "sbj">;

export interface SignInMethodsDeps {
  passkeys: PasskeyDeps;
  recovery: RecoveryCodeDeps;
  totp: TotpUseCases;
  security: AccountSecurityUseCases;
  events: Pick<SecurityEventLog, "record">;
  /** Which second-step codes by e-mail or SMS the operator switched on. */
  codeSettings: SecondFactorDeps["settings"];
  /** The notice of a new way in, to the account's e-mail. */
  notices: { courier: Courier; log: (message: string, fields: Record<string, unknown>) => void };
}

/**
 * The account console's sign-in methods (docs/account.md): passkeys, authenticator apps,
 * recovery codes and whether every sign-in needs a second factor. Each change records its
 * security event, as the same change through the management API does.
 */
export function signInMethodsUseCases(deps: SignInMethodsDeps) {
  const recorded = (sub: string, actor: ConsoleActor, type: string, prms?: SecurityEvent["prms"]) =>
    deps.events.record({ ...actor, sbj: sub, type, result: "ok", ...(prms && { prms }) });
  return {
    /** Everything the section shows, the passkey creation options bound to `binding`. */
    async view(account: Account, binding: string) {
      const [{ passkeys, options }, codes, authenticators, modes] = await Promise.all([
        registrationOptions(deps.passkeys, account.sub, binding),
        recoveryCodeStatus(deps.recovery, account.sub),
        deps.totp.list(account.sub),
        deps.security.authModes(account.sub, account),
      ]);
      // Second-step codes go to a confirmed contact, by the channels the operator switched on.
      const codesTo = (["email", "sms"] as const).flatMap((channel) => {
        const to = codeContact(deps.codeSettings, account, channel);
        return to ? [{ channel, to }] : [];
      });
      return {
        passkeys,
        options,
        recoveryLeft: codes.remaining,
        authenticators,
        codesTo,
        secondFactorRequired: modes.requiredFactor === 2,
      };
    },

    async addPasskey(
      account: Account,
      input: { response: RegistrationResponseJSON; name?: string },
      binding: string,
      actor: ConsoleActor,
      language: Language,
    ) {
      await addPasskey(deps.passkeys, account.sub, input, binding, actor);
      await sendSecurityNotice(deps.notices, account, "passkey-added", language, nowSeconds());
    },

    async renamePasskey(sub: string, id: string, name: string, actor: ConsoleActor) {
      await renamePasskey(deps.passkeys, sub, id, name);
      await recorded(sub, actor, "passkey_rename", { passkey: id });
    },

    removePasskey: (sub: string, id: string, actor: ConsoleActor) => deletePasskey(deps.passkeys, sub, id, actor),

    newRecoveryCodes: (sub: string, context: EventContext, now: number) =>
      generateRecoveryCodes(deps.recovery, sub, context, now),

    /** A new authenticator-app secret for this account, waiting for its first code (10 minutes). */
    async startAuthenticator(account: Account, actor: ConsoleActor) {
      const issued = await deps.totp.issue(account.sub, account);
      await recorded(account.sub, actor, "totp_issue");
      return issued;
    },

    /** The app's first code proves it holds the secret; then the app is a second factor. */
    async attachAuthenticator(
      account: Account,
      input: { base32Secret: string; otpCode: string; name?: string },
      actor: ConsoleActor,
      language: Language,
    ) {
      await deps.totp.attach(account.sub, input);
      await recorded(account.sub, actor, "totp_attach");
      await sendSecurityNotice(deps.notices, account, "authenticator-added", language, nowSeconds());
    },

    async removeAuthenticator(sub: string, id: string, actor: ConsoleActor) {
      await deps.totp.detach(sub, id);
      await recorded(sub, actor, "totp_delete", { id });
    },

    /** Every sign-in asks for a second factor, or only when a client asks; refused without a method to ask for. */
    async requireSecondFactor(account: Account, required: boolean, actor: ConsoleActor) {
      await deps.security.changeAuthModes(account.sub, { requiredFactor: required ? 2 : null }, account);
      await recorded(account.sub, actor, "security.auth-change", { requiredFactor: required ? 2 : 0 });
    },
  };
}

export type SignInMethodsUseCases = ReturnType<typeof signInMethodsUseCases>;
