import type { JsonSchema } from "../route";
import { personName } from "./common";

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
      const: true,
      description: "true: the value is already confirmed and changes at once (system mode only)",
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
