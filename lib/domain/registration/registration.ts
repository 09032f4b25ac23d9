import { type ConfirmationBody, confirmRegistration } from "./confirm";
import { type RegistrationBody, type RegistrationCaller, type RegistrationDeps, register } from "./register";

export type RegistrationUseCases = ReturnType<typeof registrationUseCases>;

/** Registration through an application (interface §4.4, 4.5). */
export function registrationUseCases(deps: RegistrationDeps) {
  return {
    register: (body: RegistrationBody, caller: RegistrationCaller) => register(body, caller, deps),
    confirm: (context: string, body: ConfirmationBody, caller: RegistrationCaller) =>
      confirmRegistration(context, body, caller, deps),
  };
}
