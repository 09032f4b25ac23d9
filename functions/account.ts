import { validators } from "../lib/compiled/account-validators";
import { config } from "../lib/config";
import {
  accountData,
  accountDeletionDeps,
  attributeDeps,
  bindDeps,
  courier,
  passkeyDeps,
  passwordChangeDeps,
  perCall,
  recoveryCodeDeps,
  requestChecks,
  secondFactorMethodDeps,
  services,
  totpDeps,
} from "../lib/container";
import { activityUseCases } from "../lib/domain/account-console/activity";
import { connectedAppsUseCases } from "../lib/domain/account-console/connected-apps";
import { consoleSessionUseCases } from "../lib/domain/account-console/console-session";
import { consoleDevicesUseCases } from "../lib/domain/account-console/devices";
import { linkedAccountsUseCases } from "../lib/domain/account-console/linked-accounts";
import { consolePasswordUseCases } from "../lib/domain/account-console/password";
import { profileUseCases } from "../lib/domain/account-console/profile";
import { signInMethodsUseCases } from "../lib/domain/account-console/sign-in-methods";
import { yourDataUseCases } from "../lib/domain/account-console/your-data";
import { auditUseCases } from "../lib/domain/audit/audit";
import { deviceUseCases } from "../lib/domain/devices/devices";
import { accountSecurityUseCases } from "../lib/domain/security/account-security";
import { totpUseCases } from "../lib/domain/security/totp-management";
import { createApiFunction } from "../lib/http/pipeline";
import { log } from "../lib/log";
import { brandOf, brandPages } from "../lib/pages/brand";
import { accountRoutes } from "../lib/routes/account";

const useCases = {
  session: perCall(() =>
    consoleSessionUseCases({ sessions: services().sessions, logins: services().logins, passkeys: passkeyDeps() }),
  ),
  profile: perCall(() =>
    profileUseCases({
      accounts: services().accounts,
      attributes: attributeDeps,
      events: services().events,
      notices: { courier: courier(), log: log.warn },
    }),
  ),
  password: perCall(() => consolePasswordUseCases(passwordChangeDeps())),
  methods: perCall(() =>
    signInMethodsUseCases({
      passkeys: passkeyDeps(),
      recovery: recoveryCodeDeps(),
      totp: totpUseCases({ ...totpDeps(), accounts: services().accounts }),
      security: accountSecurityUseCases({ ...services(), secondFactor: secondFactorMethodDeps() }),
      events: services().events,
      notices: { courier: courier(), log: log.warn },
      codeSettings: config().settings,
    }),
  ),
  devices: perCall(() => consoleDevicesUseCases({ devices: deviceUseCases(services()) })),
  apps: perCall(() =>
    connectedAppsUseCases({
      audit: auditUseCases({ ...services(), retentionDays: config().settings.audit.retentionDays }),
      clients: services().clients,
      events: services().events,
    }),
  ),
  linked: perCall(() => linkedAccountsUseCases({ ...bindDeps(), events: services().events })),
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

// The pages this function serves show the operator's product name, logo and theme.
brandPages(() => brandOf(config().settings.branding));

export const handler = createApiFunction("account", accountRoutes(useCases), validators, requestChecks());
