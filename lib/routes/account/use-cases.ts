import type { ActivityUseCases } from "../../domain/account-console/activity";
import type { ConnectedAppsUseCases } from "../../domain/account-console/connected-apps";
import type { ConsoleSessionUseCases } from "../../domain/account-console/console-session";
import type { ConsoleDevicesUseCases } from "../../domain/account-console/devices";
import type { LinkedAccountsUseCases } from "../../domain/account-console/linked-accounts";
import type { ConsolePasswordUseCases } from "../../domain/account-console/password";
import type { ProfileUseCases } from "../../domain/account-console/profile";
import type { SignInMethodsUseCases } from "../../domain/account-console/sign-in-methods";
import type { YourDataUseCases } from "../../domain/account-console/your-data";

/** What the account console's routes are handed (functions/account.ts builds them from the container). */
export interface AccountConsoleUseCases {
  /** The signed-in browser and its re-authentication. */
  session: ConsoleSessionUseCases;
  /** Names, and the e-mail and phone changed with a code. */
  profile: ProfileUseCases;
  /** A new password under the policy. */
  password: ConsolePasswordUseCases;
  /** Passkeys, the authenticator app, recovery codes and the second factor. */
  methods: SignInMethodsUseCases;
  /** The devices the account signed in from, and their sessions. */
  devices: ConsoleDevicesUseCases;
  /** The applications the user granted access to (consents). */
  apps: ConnectedAppsUseCases;
  /** Accounts at external providers linked to this one. */
  linked: LinkedAccountsUseCases;
  /** Recent activity and "This wasn't me". */
  activity: ActivityUseCases;
  /** The account's data: its download and its deletion. */
  data: YourDataUseCases;
}
