import type { RegistrationResponseJSON } from "@simplewebauthn/server";
import type { SecurityEvent } from "../audit/security-event";
import type { LoginRepository } from "../login/ports";
import { verifyUserPassword } from "../login/verify-user-password";
import {
  type EventContext,
  generateRecoveryCodes,
  type RecoveryCodeDeps,
  recoveryCodeStatus,
} from "../security/recovery-codes";
import { addPasskey, deletePasskey, type PasskeyDeps, registrationOptions } from "./passkeys";

type Actor = Omit<SecurityEvent, "type" | "result" | "sbj">;

/** The hosted account page (docs/passkeys.md): passkeys and recovery codes of the signed-in user. */
export function accountPageUseCases(deps: {
  passkeys: PasskeyDeps;
  recovery: RecoveryCodeDeps;
  logins: LoginRepository;
}) {
  return {
    /** The page's passkeys, creation options bound to `binding`, and how many recovery codes remain. */
    async view(sub: string, binding: string) {
      const [{ passkeys, options }, codes] = await Promise.all([
        registrationOptions(deps.passkeys, sub, binding),
        recoveryCodeStatus(deps.recovery, sub),
      ]);
      return { passkeys, options, remaining: codes.remaining };
    },

    /** The account's password again, counted like any password guess. */
    async provedAgain(sub: string, password: string, addresses: string[], now: number): Promise<boolean> {
      const verdict = await verifyUserPassword(deps.logins, sub, password, addresses, now);
      if (!verdict.ok || verdict.account.sub !== sub) return false;
      await deps.logins.giveBack(verdict.attempt, true);
      return true;
    },

    add: (sub: string, input: { response: RegistrationResponseJSON; name?: string }, binding: string, actor: Actor) =>
      addPasskey(deps.passkeys, sub, input, binding, actor),
    remove: (sub: string, id: string, actor: Actor) => deletePasskey(deps.passkeys, sub, id, actor),
    newRecoveryCodes: (sub: string, context: EventContext, now: number) =>
      generateRecoveryCodes(deps.recovery, sub, context, now),
  };
}

export type AccountPageUseCases = ReturnType<typeof accountPageUseCases>;
