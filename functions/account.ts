import { validators } from "../lib/compiled/account-validators";
import { config } from "../lib/config";
import {
  accountData,
  accountDeletionDeps,
  passkeyDeps,
  perCall,
  recoveryCodeDeps,
  requestChecks,
  secondFactorMethodDeps,
  services,
  totpDeps,
} from "../lib/container";
import { activityUseCases } from "../lib/domain/account-console/activity";
import { consoleSessionUseCases } from "../lib/domain/account-console/console-session";
import { signInMethodsUseCases } from "../lib/domain/account-console/sign-in-methods";
import { yourDataUseCases } from "../lib/domain/account-console/your-data";
import { accountSecurityUseCases } from "../lib/domain/security/account-security";
import { totpUseCases } from "../lib/domain/security/totp-management";
import { createApiFunction } from "../lib/http/pipeline";
import { accountRoutes } from "../lib/routes/account";

const useCases = {
  session: perCall(() =>
    consoleSessionUseCases({ sessions: services().sessions, logins: services().logins, passkeys: passkeyDeps() }),
  ),
  methods: perCall(() =>
    signInMethodsUseCases({
      passkeys: passkeyDeps(),
      recovery: recoveryCodeDeps(),
      totp: totpUseCases({ ...totpDeps(), accounts: services().accounts }),
      security: accountSecurityUseCases({ ...services(), secondFactor: secondFactorMethodDeps() }),
      events: services().events,
    }),
  ),
  activity: perCall(() =>
    activityUseCases({
      events: services().events,
      sessions: services().sessions,
      security: services().accountSecurity,
      retentionDays: config().settings.audit.retentionDays,
    }),
  ),
  data: perCall(() =>
    yourDataUseCases({
      data: accountData(),
      deletion: accountDeletionDeps(),
      retentionDays: config().settings.audit.retentionDays,
    }),
  ),
};

export const handler = createApiFunction("account", accountRoutes(useCases), validators, requestChecks());
