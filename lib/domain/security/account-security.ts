import type { Account } from "../accounts/account";
import type { AccountRepository, AccountSecurityRepository } from "../accounts/ports";
import { problems } from "../errors";
import { setUntouchable, stateView } from "./account-state";
import { type AuthModesBody, authModesView, changeAuthModes } from "./auth-modes";
import { hasSecondFactorMethod, type SecondFactorDeps } from "./second-factor";
import { checkAnswer, readQuestion, type SecurityQuestionRepository, setQuestion } from "./security-question";

export interface AccountSecurityDeps {
  accounts: Pick<AccountRepository, "get">;
  accountSecurity: AccountSecurityRepository;
  securityQuestions: SecurityQuestionRepository;
  /** Tells whether requiredFactor 2 may be set. */
  secondFactor: Pick<SecondFactorDeps, "settings" | "hasAuthenticator">;
}

export type AccountSecurityUseCases = ReturnType<typeof accountSecurityUseCases>;

const nowSeconds = () => Math.floor(Date.now() / 1000);

/**
 * The account `sub`: `known` when it is that account (a user token's own, read with the
 * session check), else read; unknown_user when there is none.
 */
export async function accountOf(
  accounts: Pick<AccountRepository, "get">,
  sub: string,
  known: Account | undefined,
): Promise<Account> {
  if (known?.sub === sub) return known;
  const found = await accounts.get(sub);
  if (!found) throw problems.unknownUser(sub);
  return found;
}

/** Authentication modes (interface §4.12), account state (§4.13) and the security question (§4.10). */
export function accountSecurityUseCases(deps: AccountSecurityDeps) {
  const account = (sub: string, known: Account | undefined) => accountOf(deps.accounts, sub, known);
  return {
    async authModes(sub: string, known: Account | undefined) {
      return authModesView(await account(sub, known));
    },

    /** The account is read only when a second factor is asked for: to tell whether it has a method. */
    changeAuthModes(sub: string, body: AuthModesBody, known: Account | undefined) {
      return changeAuthModes(deps.accountSecurity, sub, body, async () =>
        hasSecondFactorMethod(deps.secondFactor, await account(sub, known)),
      );
    },

    async state(sub: string, known: Account | undefined) {
      return stateView(await account(sub, known));
    },

    setUntouchable: (sub: string, till: number | undefined) =>
      setUntouchable(deps.accountSecurity, sub, till, nowSeconds()),

    question: (sub: string) => readQuestion(deps.securityQuestions, sub),

    setQuestion: (sub: string, input: { question: string; answer: string }) =>
      setQuestion(deps.securityQuestions, sub, input, nowSeconds()),

    /** Also when none was set. */
    removeQuestion: (sub: string) => deps.securityQuestions.remove(sub),

    checkAnswer: (sub: string, input: { question: string; answer: string }) =>
      checkAnswer(deps.securityQuestions, sub, input, nowSeconds()),
  };
}
