import type { Account } from "../accounts/account";
import type { AccountRepository } from "../accounts/ports";
import { accountOf } from "./account-security";
import { attachGenerator, detachGenerator, issueSecret, listGenerators, type TotpDeps } from "./totp-generators";

export type TotpUseCases = ReturnType<typeof totpUseCases>;

/** An account's TOTP generators (interface §4.15): enrolment by an issued secret, listing, removal. */
export function totpUseCases(deps: TotpDeps & { accounts: Pick<AccountRepository, "get"> }) {
  return {
    list: (sub: string) => listGenerators(deps, sub),

    /** `known`: the caller's own account when the session check read it (saves a read). */
    async issue(sub: string, known: Account | undefined) {
      return issueSecret(deps, await accountOf(deps.accounts, sub, known));
    },

    attach: (sub: string, input: { base32Secret: string; otpCode: string; name?: string }) =>
      attachGenerator(deps, sub, input),

    detach: (sub: string, id: string) => detachGenerator(deps, sub, id),
  };
}
