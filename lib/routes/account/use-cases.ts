import type { ConsoleSessionUseCases } from "../../domain/account-console/console-session";
import type { SignInMethodsUseCases } from "../../domain/account-console/sign-in-methods";

/** What the account console's routes are handed (functions/account.ts builds them from the container). */
export interface AccountConsoleUseCases {
  /** The signed-in browser and its re-authentication. */
  session: ConsoleSessionUseCases;
  /** Passkeys, the authenticator app, recovery codes and the second factor. */
  methods: SignInMethodsUseCases;
}
