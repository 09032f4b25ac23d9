import type { JsonSchema } from "../route";
import { personName, STORABLE_NUMBER_BOUNDS } from "./common";

const contactView: JsonSchema = {
  type: "object",
  required: ["value", "vrf"],
  properties: { value: { type: "string" }, vrf: { type: "boolean", description: "confirmed" } },
};

/** SPEC 2.1 as v3 reads return it. */
export const accountView: JsonSchema = {
  type: "object",
  required: ["sub", "locked", "meta"],
  properties: {
    sub: { type: "string" },
    family_name: { type: "string" },
    given_name: { type: "string" },
    middle_name: { type: "string" },
    locked: { type: "boolean" },
    phone_number: contactView,
    email: contactView,
    notes: {
      type: "object",
      description: "present only while a contact change waits for its code (SPEC 2.6)",
      properties: {
        actions: {
          type: "array",
          items: {
            type: "object",
            required: ["state", "exp", "status", "from", "attr", "attempts_left", "value", "action", "created"],
            properties: {
              state: { type: "string" },
              exp: { type: "integer", description: "lifetime of the code in seconds" },
              status: { const: "code_waiting" },
              from: { type: "string" },
              attr: { enum: ["phone_number", "email"] },
              attempts_left: { type: "integer" },
              value: { type: "string" },
              action: { enum: ["validate_mobile", "validate_mail"] },
              created: { type: "integer" },
            },
          },
        },
      },
    },
    meta: {
      type: "object",
      required: ["instanceId", "unmodifiable"],
      properties: {
        instanceId: { type: "string" },
        unmodifiable: { type: "array", items: { type: "string" } },
      },
    },
  },
};

const contactChange = (description: string): JsonSchema => ({
  type: "object",
  additionalProperties: false,
  required: ["value", "vrf"],
  description,
  properties: {
    value: { type: "string", minLength: 1, maxLength: 254 },
    vrf: {
      type: "boolean",
      description:
        "true: the value is confirmed already and changes at once (system mode only); false: a code is sent to the new value and the change waits in notes.actions",
    },
  },
});

/** SPEC 4.6 attribute change: only the attributes to change. */
export const accountChange: JsonSchema = {
  type: "object",
  additionalProperties: false,
  minProperties: 1,
  properties: {
    family_name: { anyOf: [personName, { type: "null" }], description: "null removes it" },
    given_name: { anyOf: [personName, { type: "null" }], description: "null removes it" },
    middle_name: { anyOf: [personName, { type: "null" }], description: "null removes it" },
    locked: { type: "boolean", description: "system mode only" },
    phone_number: contactChange("new phone number, (country code)XXXXXXXXXX"),
    email: contactChange("new e-mail address"),
    sub: { description: "unmodifiable: always refused" },
    meta: { description: "read only: always refused" },
  },
};

const propertyValue = { type: ["string", "number", "boolean"], maxLength: 1024, ...STORABLE_NUMBER_BOUNDS };
const propertyName = { type: "string", minLength: 1, maxLength: 64, pattern: "^[A-Za-z0-9_.:-]+$" };

/** SPEC 4.11: the property map; values are strings, numbers or booleans only. */
export const propertyMap: JsonSchema = {
  type: "object",
  propertyNames: propertyName,
  additionalProperties: propertyValue,
};

export const propertiesChange: JsonSchema = {
  type: "object",
  additionalProperties: false,
  minProperties: 1,
  properties: {
    add: { type: "object", maxProperties: 50, propertyNames: propertyName, additionalProperties: propertyValue },
    remove: { type: "array", maxItems: 50, items: propertyName },
  },
};
