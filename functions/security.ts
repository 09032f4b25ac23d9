import { validators } from "../lib/compiled/security-validators";
import {
  passkeyDeps,
  perCall,
  recoveryCodeDeps,
  requestChecks,
  secondFactorMethodDeps,
  services,
  totpDeps,
} from "../lib/container";
import { passkeyUseCases } from "../lib/domain/passkeys/passkey-management";
import { accountSecurityUseCases } from "../lib/domain/security/account-security";
import { qrDecisionUseCases } from "../lib/domain/security/qr-decisions";
import { recoveryCodeUseCases } from "../lib/domain/security/recovery-codes";
import { totpUseCases } from "../lib/domain/security/totp-management";
import { createApiFunction } from "../lib/http/pipeline";
import { securityRoutes } from "../lib/routes/security";

const security = securityRoutes({
  account: perCall(() => accountSecurityUseCases({ ...services(), secondFactor: secondFactorMethodDeps() })),
  totp: perCall(() => totpUseCases({ ...totpDeps(), accounts: services().accounts })),
  recoveryCodes: perCall(() => recoveryCodeUseCases(recoveryCodeDeps())),
  passkeys: perCall(() => passkeyUseCases(passkeyDeps())),
  qrLogins: perCall(() => qrDecisionUseCases(services())),
});

export const handler = createApiFunction("security", security, validators, requestChecks());
