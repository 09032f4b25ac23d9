import type { InvitationLinkUseCases } from "../organizations/invitations";
import { finishPasswordReset, type PasswordResetDeps, requestPasswordReset } from "../passwords/reset-password";
import { type ConfirmationBody, confirmRegistration } from "../registration/confirm";
import { instructionsOf } from "../registration/instructions";
import {
  type RegistrationBody,
  type RegistrationCaller,
  type RegistrationDeps,
  register,
} from "../registration/register";

/** Registration and forgotten password as the hosted pages run them (both end back in the sign-in). */
export function selfServiceUseCases(deps: {
  registration: RegistrationDeps;
  reset: PasswordResetDeps;
  invitations: Pick<InvitationLinkUseCases, "confirms">;
}) {
  return {
    /**
     * A taken e-mail or phone is not told to the page (ASVS V6): its owner hears of it by message.
     * Started from an invitation's link, the invited address needs no code: the link proved it.
     */
    async register(body: RegistrationBody, caller: RegistrationCaller, invitation?: string) {
      const email = body.user.attrs.email;
      const proved =
        invitation !== undefined && email !== undefined && (await deps.invitations.confirms(invitation, email.value));
      const attrs = proved ? { ...body.user.attrs, email: { value: email.value, verified: true } } : body.user.attrs;
      return register({ ...body, user: { ...body.user, attrs } }, { ...caller, concealTaken: true }, deps.registration);
    },
    confirm: (context: string, body: ConfirmationBody, caller: RegistrationCaller) =>
      confirmRegistration(context, body, caller, deps.registration),
    /** What a registration still waits for, when it is pending (after a refusal that said nothing of it). */
    async pending(context: string, now: number) {
      const pending = await deps.registration.registrations.get(context, now);
      const attempts = deps.registration.settings.codes.attempts;
      return pending && { context, instructions: instructionsOf(pending, attempts, now) };
    },
    requestReset: (login: string, caller: Parameters<typeof requestPasswordReset>[1], now: number) =>
      requestPasswordReset(login, caller, deps.reset, now),
    finishReset: (
      input: { login: string; code: string; password: string },
      caller: Parameters<typeof finishPasswordReset>[1],
      now: number,
    ) => finishPasswordReset(input, caller, deps.reset, now),
  };
}

export type SelfServiceUseCases = ReturnType<typeof selfServiceUseCases>;
