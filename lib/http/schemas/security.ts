import type { JsonSchema } from "../route";

/** SPEC 4.1 body. */
export const passwordChangeBody: JsonSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    current: { type: "string", minLength: 1, maxLength: 1024, description: "required in user mode" },
    password: { type: "string", minLength: 1, maxLength: 1024, description: "omitted: a password is generated" },
    resetSessions: { type: "boolean", description: "default true: end every session and forget devices" },
    sendPswdToAttr: { type: "string", maxLength: 64, description: "attribute with the phone to SMS the password to" },
  },
};

/** SPEC 4.2 body. */
export const subordinatePasswordBody: JsonSchema = {
  type: "object",
  additionalProperties: false,
  required: ["value"],
  properties: { value: { type: "string", minLength: 1, maxLength: 1024 } },
};

export const authModesView: JsonSchema = {
  type: "object",
  required: ["needPasswordChange", "methodsLocked"],
  properties: {
    requiredFactor: { type: "integer", description: "2: a second factor is required" },
    needPasswordChange: { type: "boolean" },
    methodsLocked: { type: "array", items: { type: "string" } },
  },
};

/** SPEC 4.12 body: any of the three, with only the values the spec allows. */
export const authModesBody: JsonSchema = {
  type: "object",
  additionalProperties: false,
  minProperties: 1,
  properties: {
    requiredFactor: { enum: [null, 2], description: "null disables, 2 enables a second factor" },
    needPasswordChange: { const: true, description: "only true: force a change at the next login" },
    methodsLocked: { type: "array", maxItems: 1, items: { const: "password" }, description: "[] unlocks" },
  },
};

export const stateView: JsonSchema = {
  type: "object",
  required: ["name"],
  properties: {
    name: { enum: ["initial", "active", "inactivityLock", "untouchable"] },
    checkedOn: { type: "integer" },
    on: { type: "integer" },
    till: { type: "integer" },
  },
};

/** SPEC 4.13 body. */
export const stateBody: JsonSchema = {
  type: "object",
  additionalProperties: false,
  required: ["name"],
  properties: {
    name: { const: "untouchable" },
    // The upper bound keeps it a safe integer for DynamoDB (a larger one gave a 500); year 9999.
    till: {
      type: "integer",
      minimum: 0,
      maximum: 253_402_300_799,
      description: "Unix time; now or earlier ends the status",
    },
  },
};

export const deviceList: JsonSchema = {
  type: "array",
  items: {
    type: "object",
    required: ["id", "name", "lastUsed", "subjectId"],
    properties: {
      name: { type: "string" },
      lastUsed: { type: "integer" },
      tp: { type: "string" },
      os: { type: "string" },
      newlyCreated: { type: "boolean" },
      deviceType: { type: "string" },
      latestIp: { type: "string" },
      subjectId: { type: "string" },
      id: { type: "string" },
      trusted: { type: "boolean" },
      cls: { type: "boolean" },
      deviceId: { type: "string" },
      device: { type: "string" },
    },
  },
};

/** Path parameters of a call on one listed item of an account: `{subjectId}/.../{id}`. */
export function subjectItemParams(idDescription: string): JsonSchema {
  return {
    type: "object",
    required: ["subjectId", "id"],
    properties: {
      subjectId: { type: "string", pattern: "^[A-Za-z0-9][A-Za-z0-9._@~+-]{0,127}$" },
      id: { type: "string", pattern: "^[A-Za-z0-9_-]{1,64}$", description: idDescription },
    },
  };
}

export const deviceParams = subjectItemParams("device id (ua_id) from the list");

/** SPEC 2.7 TOTP generators; secrets are never shown after enrolment. */
export const totpList: JsonSchema = {
  type: "array",
  items: {
    type: "object",
    required: ["id", "len", "name"],
    properties: { id: { type: "string" }, len: { type: "integer" }, name: { type: "string" } },
  },
};

export const totpIssued: JsonSchema = {
  type: "object",
  required: ["base64QRCode", "base32Secret"],
  properties: {
    base64QRCode: { type: "string", description: "PNG, base64: an otpauth://totp URI with issuer and account" },
    base32Secret: { type: "string", description: "the same secret for typing in; valid for enrolment 10 minutes" },
  },
};

export const totpAttachBody: JsonSchema = {
  type: "object",
  additionalProperties: false,
  required: ["base32Secret", "otpCode"],
  properties: {
    base32Secret: { type: "string", pattern: "^[A-Za-z2-7]{16,128}=*$", description: "issued by GET attach/qr" },
    otpCode: { type: "string", minLength: 1, maxLength: 16 },
    name: { type: "string", minLength: 1, maxLength: 64 },
  },
};

export const totpParams = subjectItemParams("generator id from the list");

/** SPEC 4.10 set and check body. */
export const securityQuestionBody: JsonSchema = {
  type: "object",
  additionalProperties: false,
  required: ["question", "answer"],
  properties: {
    question: { type: "string", minLength: 1, maxLength: 256 },
    answer: { type: "string", minLength: 1, maxLength: 256 },
  },
};

export const securityQuestionView: JsonSchema = {
  type: "object",
  required: ["question"],
  properties: { question: { type: "string" } },
};
