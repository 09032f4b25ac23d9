import type { JsonSchema } from "../route";
import { personName } from "./common";

const contact = (description: string): JsonSchema => ({
  type: "object",
  additionalProperties: false,
  required: ["value"],
  description,
  properties: {
    value: { type: "string", minLength: 1, maxLength: 254 },
    verified: { type: "boolean", description: "true: already confirmed, no code is sent" },
  },
});

/** SPEC 4.4 request. */
export const registrationRequest: JsonSchema = {
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
            first_name: { ...personName, description: "alias of family_name (SPEC 2.1)" },
            name: { ...personName, description: "alias of given_name (SPEC 2.1)" },
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
};

const instruction: JsonSchema = {
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
};

/** SPEC 4.4 / 4.5 answer. */
export const registrationResponse: JsonSchema = {
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
};

export const registrationError: JsonSchema = {
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
};

const code = { type: "string", minLength: 1, maxLength: 32 };

/** SPEC 4.5 request: exactly one field. */
export const confirmationRequest: JsonSchema = {
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
};

export const contextParam: JsonSchema = {
  type: "object",
  required: ["context"],
  properties: {
    context: { type: "string", pattern: "^[A-Za-z0-9_-]{1,64}$", description: "context of the registration" },
  },
};
