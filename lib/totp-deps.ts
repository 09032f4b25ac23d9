import { config } from "./config";
import { dataKeys } from "./crypto/data-key";
import type { TotpDeps } from "./domain/security/totp-generators";
import { services } from "./services";

/**
 * What TOTP enrolment and checks need. Apart from services() because it loads the data
 * key: only the functions that handle TOTP secrets bundle the Secrets Manager client.
 */
export function totpDeps(): TotpDeps {
  return {
    totps: services().totps,
    key: () => dataKeys().key("totp-secrets"),
    issuer: config().issuer,
    now: () => Math.floor(Date.now() / 1000),
  };
}
