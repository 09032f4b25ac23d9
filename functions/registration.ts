import { servedRoutes } from "../lib/compiled/registration-routes";
import { type ConfirmationBody, confirmRegistration } from "../lib/domain/registration/confirm";
import { type RegistrationBody, register } from "../lib/domain/registration/register";
import { jsonResult } from "../lib/http/error-body";
import type { ApiCall } from "../lib/http/pipeline";
import { createApiFunction } from "../lib/http/pipeline";
import { registrationDeps } from "../lib/messaging";

function callerOf(call: ApiCall) {
  return {
    clientId: call.principal?.clientId ?? "unknown",
    language: call.language,
    ip: call.sourceIp,
    userAgent: call.userAgent,
  };
}

export const handler = createApiFunction("registration", servedRoutes, {
  "registration.register": async (call) =>
    jsonResult(200, await register(call.body as RegistrationBody, callerOf(call), registrationDeps())),

  "registration.confirm": async (call) =>
    jsonResult(
      200,
      await confirmRegistration(call.params.context, call.body as ConfirmationBody, callerOf(call), registrationDeps()),
    ),
});
