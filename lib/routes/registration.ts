import type { RegistrationUseCases } from "../domain/registration/registration";
import { jsonResult } from "../http/error-body";
import type { CommonCall } from "../http/route";
import { group, route } from "../http/route";
import { personName } from "./schemas";

const contact = (description: string) =>
  ({
    type: "object",
    additionalProperties: false,
    required: ["value"],
    description,
    properties: {
      value: { type: "string", minLength: 1, maxLength: 254 },
      verified: { type: "boolean", description: "true: already confirmed, no code is sent" },
    },
  }) as const;

/** interface §4.4 request. */
export const registrationRequest = {
  type: "object",
  additionalProperties: false,
  required: ["user"],
  properties: {
    user: {
      type: "object",
      additionalProperties: false,
      required: ["attrs"],
      properties: {
        attrs: {
          type: "object",
          additionalProperties: false,
          properties: {
            sub: { type: "string", minLength: 1, maxLength: 128, description: "generated when absent" },
            family_name: personName,
            given_name: personName,
            middle_name: personName,
            first_name: { ...personName, description: "alias of family_name (interface §2.1)" },
            name: { ...personName, description: "alias of given_name (interface §2.1)" },
            phone_number: contact("(country code)XXXXXXXXXX"),
            email: contact("e-mail address"),
          },
        },
        credentials: {
          type: "object",
          additionalProperties: false,
          properties: { password: { type: "string", minLength: 1, maxLength: 1024 } },
        },
      },
    },
    actions: {
      type: "array",
      maxItems: 10,
      items: {
        type: "object",
        additionalProperties: false,
        required: ["type", "client_id"],
        properties: {
          type: { const: "bindDynClient" },
          client_id: { type: "string", pattern: "^dyn~[^~]{1,64}~[^~]{1,64}$", description: "dyn~<app>~<id>" },
        },
      },
    },
  },
} as const;

const instruction = {
  type: "object",
  required: ["name"],
  properties: {
    mobile: { type: "string" },
    email: { type: "string" },
    exp: { type: "integer" },
    attemts: { type: "integer", description: "attempts left (the spec's spelling)" },
    name: {
      enum: [
        "mbl-enter-code",
        "eml-enter-code",
        "mbl-try-again",
        "eml-try-again",
        "mbl-expired",
        "eml-expired",
        "mbl-no-attempts",
        "eml-no-attempts",
      ],
    },
  },
} as const;

/** interface §4.4 / 4.5 answer. */
export const registrationResponse = {
  type: "object",
  required: ["context", "instructions"],
  properties: {
    instanceId: { type: "string" },
    subject: { type: "string" },
    context: { type: "string" },
    cookies: {
      type: "array",
      items: {
        type: "object",
        required: ["name", "value"],
        properties: { name: { type: "string" }, value: { type: "string" } },
      },
    },
    instructions: { type: "array", items: instruction },
  },
} as const;

export const registrationError = {
  type: "object",
  required: ["errors", "context"],
  properties: {
    errors: {
      type: "array",
      items: {
        type: "object",
        required: ["errMsg", "field"],
        properties: { errMsg: { type: "string" }, field: { type: "string" } },
      },
    },
    context: { const: "" },
  },
} as const;

const code = { type: "string", minLength: 1, maxLength: 32 } as const;

/** interface §4.5 request: exactly one field. */
export const confirmationRequest = {
  type: "object",
  additionalProperties: false,
  minProperties: 1,
  maxProperties: 1,
  properties: {
    sms_code: code,
    email_code: code,
    sms_code_resend: { type: "string", description: "any value: send a new SMS code" },
    email_code_resend: { type: "string", description: "any value: send a new e-mail code" },
  },
} as const;

export const contextParam = {
  type: "object",
  required: ["context"],
  properties: {
    context: { type: "string", pattern: "^[A-Za-z0-9_-]{1,64}$", description: "context of the registration" },
  },
} as const;

function callerOf(call: CommonCall) {
  return {
    clientId: call.principal?.clientId ?? "unknown",
    language: call.language,
    ip: call.sourceIp,
    userAgent: call.userAgent,
  } as const;
}

const registerRoute = (registration: RegistrationUseCases) =>
  route({
    id: "registration.register",
    method: "PUT",
    path: "/svc/reg/api/v3/users",
    version: "reg",
    auth: "bearer",
    permissions: { system: ["svc_api_sys_users_reg"] },
    summary: "Register an account (interface §4.4)",
    description:
      "Creates the account at once when every contact is confirmed (verified: true) or absent; otherwise sends a code to each unconfirmed phone (SMS) and e-mail and answers a context with instructions (interface §3.3). With registration.createBeforeConfirm the account is created at once and its contacts confirmed later. Accept-Language: en sends English messages. Conflicts answer 409 listing every field already used; invalid values 400; a message that cannot be sent 502 (nothing is stored).",
    tags: ["registration"],
    request: { body: { contentType: "json", schema: registrationRequest, required: true } },
    responses: {
      200: { description: "Registered, or waiting for codes", schema: registrationResponse },
      400: { description: "Invalid values, password policy, dynamic client", schema: registrationError },
      401: { description: "bad_access_token", schema: registrationError },
      409: { description: "Values already used by another account", schema: registrationError },
      502: { description: "The code could not be sent; nothing was stored", schema: registrationError },
      403: {
        description: "registration_refused by the preRegistration hook (docs/hooks.md)",
        schema: registrationError,
      },
      503: {
        description: "hook_failed: the preRegistration hook failed; nothing was stored",
        schema: registrationError,
      },
    },
    handler: async (call) => jsonResult(200, await registration.register(call.body, callerOf(call))),
  });

const confirmRoute = (registration: RegistrationUseCases) =>
  route({
    id: "registration.confirm",
    method: "POST",
    path: "/svc/reg/api/v3/users/{context}",
    version: "reg",
    auth: "bearer",
    permissions: { system: ["svc_api_sys_users_reg"] },
    summary: "Confirm a contact of a registration, or ask for a new code (interface §4.5)",
    description:
      "Exactly one of sms_code, email_code, sms_code_resend, email_code_resend. A wrong, expired or exhausted code answers 200 with the instructions of interface §3.3; once every contact is confirmed the account is created and the full response of interface §4.4 comes back. At most 5 codes are sent per contact (429 after that).",
    tags: ["registration"],
    request: { params: contextParam, body: { contentType: "json", schema: confirmationRequest, required: true } },
    responses: {
      200: { description: "Instructions, or the completed registration", schema: registrationResponse },
      400: { description: "Invalid body, or no such contact waits", schema: registrationError },
      404: { description: "Unknown, finished or expired context", schema: registrationError },
      429: { description: "No more codes for this contact", schema: registrationError },
      502: { description: "The new code could not be sent", schema: registrationError },
    },
    handler: async (call) =>
      jsonResult(200, await registration.confirm(call.params.context, call.body, callerOf(call))),
  });

export const registrationRoutes = (registration: RegistrationUseCases) =>
  group("registration", [registerRoute(registration), confirmRoute(registration)]);
