import { ApiError, type FieldProblem } from "../errors";

const DYNAMIC_CLIENT_STATE = { unknown: "unknown", bound: "already bound", unavailable: "unknown or already bound" };

/** Registration failures: interface §4.4's `{errors: [{errMsg, field}], context: ""}` via the shaper. */
export const registrationProblems = {
  invalid: (list: FieldProblem[]) =>
    new ApiError(400, "input_error", "wrong_values", "the registration has invalid values", {
      errors: list.map((p) => ({ type: "input_error", ...p })),
    }),

  alreadyUsed: (fields: string[]) =>
    new ApiError(409, "input_error", "already_used", "values are already used by another account", {
      errors: fields.map((field) => ({
        type: "input_error",
        error: "already_used",
        pos: field,
        desc: "the value is already used by another account",
      })),
    }),

  dynamicClient: (state: "unknown" | "bound" | "unavailable") =>
    new ApiError(400, "input_error", "wrong_value", `the dynamic client_id is ${DYNAMIC_CLIENT_STATE[state]}`, {
      pos: "actions",
    }),

  unknownContext: () =>
    new ApiError(
      404,
      "input_error",
      "unknown_context",
      "no registration waits under this context: unknown, finished or expired",
      {
        pos: "context",
      },
    ),

  notWaiting: (pos: string, what: string) =>
    new ApiError(400, "input_error", "wrong_value", `no ${what} of this registration waits for a code`, { pos }),

  tooManyCodes: (pos: string) =>
    new ApiError(429, "input_error", "too_many_codes", "no more codes can be sent for this contact", { pos }),

  /** The preRegistration hook said no: its message is shown as it is (docs/hooks.md). */
  refused: (message: string) =>
    new ApiError(403, "process_error", "registration_refused", message, {
      errors: [{ type: "process_error", error: "registration_refused", pos: "user", desc: message }],
    }),

  /** The preRegistration hook gave no usable answer: fail closed, nothing stored. */
  hookFailed: () =>
    new ApiError(
      503,
      "process_error",
      "hook_failed",
      "the registration could not be checked; nothing was registered, try again",
      {
        pos: "user",
      },
    ),

  notSent: (pos: string, channel: "sms" | "email") =>
    new ApiError(
      502,
      "process_error",
      "message_not_sent",
      `the ${channel === "sms" ? "SMS" : "e-mail"} with the code could not be sent; nothing was registered`,
      {
        pos,
      },
    ),
};
