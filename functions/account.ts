import { validators } from "../lib/compiled/account-validators";
import {
  attributeDeps,
  passkeyDeps,
  passwordChangeDeps,
  perCall,
  recoveryCodeDeps,
  requestChecks,
  secondFactorMethodDeps,
  services,
  totpDeps,
} from "../lib/container";
import { consoleSessionUseCases } from "../lib/domain/account-console/console-session";
import { consolePasswordUseCases } from "../lib/domain/account-console/password";
import { profileUseCases } from "../lib/domain/account-console/profile";
import { signInMethodsUseCases } from "../lib/domain/account-console/sign-in-methods";
import { accountSecurityUseCases } from "../lib/domain/security/account-security";
import { totpUseCases } from "../lib/domain/security/totp-management";
import { createApiFunction } from "../lib/http/pipeline";
import { accountRoutes } from "../lib/routes/account";

const useCases = {
  session: perCall(() =>
    consoleSessionUseCases({ sessions: services().sessions, logins: services().logins, passkeys: passkeyDeps() }),
  ),
  profile: perCall(() =>
    profileUseCases({ accounts: services().accounts, attributes: attributeDeps, events: services().events }),
  ),
  password: perCall(() => consolePasswordUseCases(passwordChangeDeps())),
  methods: perCall(() =>
    signInMethodsUseCases({
      passkeys: passkeyDeps(),
      recovery: recoveryCodeDeps(),
      totp: totpUseCases({ ...totpDeps(), accounts: services().accounts }),
      security: accountSecurityUseCases({ ...services(), secondFactor: secondFactorMethodDeps() }),
      events: services().events,
    }),
  ),
};

export const handler = createApiFunction("account", accountRoutes(useCases), validators, requestChecks());
