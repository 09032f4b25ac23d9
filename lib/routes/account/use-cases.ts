import type { ActivityUseCases } from "../../domain/account-console/activity";
import type { ConsoleSessionUseCases } from "../../domain/account-console/console-session";
import type { SignInMethodsUseCases } from "../../domain/account-console/sign-in-methods";
import type { YourDataUseCases } from "../../domain/account-console/your-data";

/** What the account console's routes are handed (functions/account.ts builds them from the container). */
export interface AccountConsoleUseCases {
  /** The signed-in browser and its re-authentication. */
  session: ConsoleSessionUseCases;
  /** Passkeys, the authenticator app, recovery codes and the second factor. */
  methods: SignInMethodsUseCases;
  /** Recent activity and "This wasn't me". */
  activity: ActivityUseCases;
  /** The account's data: its download and its deletion. */
  data: YourDataUseCases;
}
