import { servedRoutes } from "../lib/compiled/registration-routes";
import { type ConfirmationBody, confirmRegistration } from "../lib/domain/registration/confirm";
import {
  type EarlyUniquenessCheck,
  plannedUniquenessCheck,
  type RegistrationBody,
  register,
} from "../lib/domain/registration/register";
import type { AlongKeys } from "../lib/http/along-session";
import { jsonResult } from "../lib/http/error-body";
import type { ApiCall } from "../lib/http/pipeline";
import { createApiFunction } from "../lib/http/pipeline";
import { registrationDeps } from "../lib/messaging";
import { services } from "../lib/services";

function callerOf(call: ApiCall) {
  return {
    clientId: call.principal?.clientId ?? "unknown",
    language: call.language,
    ip: call.sourceIp,
    userAgent: call.userAgent,
  };
}

/** A cold container sends the uniqueness read beside the signing keys' read. */
const uniquenessBesideKeys: AlongKeys = (caller) => {
  const check = plannedUniquenessCheck(caller.body as RegistrationBody, caller.now);
  return (
    check && {
      beside: async (): Promise<EarlyUniquenessCheck> => ({
        check,
        found: await services().registrations.check(check.sub, check.email, check.phone, check.dynamicClientId),
      }),
    }
  );
};

export const handler = createApiFunction(
  "registration",
  servedRoutes,
  {
    "registration.register": async (call) =>
      jsonResult(
        200,
        await register(
          call.body as RegistrationBody,
          callerOf(call),
          registrationDeps(),
          call.alongSession as EarlyUniquenessCheck | undefined,
        ),
      ),

    "registration.confirm": async (call) =>
      jsonResult(
        200,
        await confirmRegistration(
          call.params.context,
          call.body as ConfirmationBody,
          callerOf(call),
          registrationDeps(),
        ),
      ),
  },
  { alongKeys: { "registration.register": uniquenessBesideKeys } },
);
