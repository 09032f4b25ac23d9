import { config } from "./config";
import type { AttributeDeps } from "./domain/accounts/attributes";
import type { Courier } from "./domain/messages/ports";
import type { PasswordChangeDeps } from "./domain/passwords/change-password";
import type { RegistrationDeps } from "./domain/registration/register";
import { log } from "./http/logger";
import { courierFor } from "./notify/transport";
import { services } from "./services";

/**
 * The composition root's part for the functions that send codes and notices (those with
 * `messaging` in infra/function-needs.ts). Apart from lib/services.ts so that the SNS and
 * SES clients are bundled, parsed and built only where a message can go out.
 */

let courier: Courier | undefined;

/** The container's courier, built on first use from the configuration of that moment. */
export function messageCourier(): Courier {
  courier ??= courierFor(config());
  return courier;
}

/** What the registration flows need. */
export function registrationDeps(): RegistrationDeps {
  const { accounts, registrations, dynamicClients, sessions } = services();
  return { accounts, registrations, dynamicClients, sessions, courier: messageCourier(), settings: config().settings };
}

/** What the attribute calls need. */
export function attributeDeps(): AttributeDeps {
  return { accounts: services().accounts, courier: messageCourier(), settings: config().settings };
}

/** What password changes need. */
export function passwordChangeDeps(): PasswordChangeDeps {
  const { logins, sessions, events } = services();
  return { logins, sessions, events, courier: messageCourier(), settings: config().settings, log: log.warn };
}
