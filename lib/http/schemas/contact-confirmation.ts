import { CONTACT_STATE_PATTERN } from "../../domain/accounts/instance-id";
import type { JsonSchema } from "../route";

export const stateParam: JsonSchema = {
  type: "object",
  required: ["state"],
  properties: { state: { type: "string", pattern: CONTACT_STATE_PATTERN, description: "notes.actions[].state" } },
};

export const contactCodeRequest: JsonSchema = {
  type: "object",
  additionalProperties: false,
  required: ["cmd", "value"],
  properties: { cmd: { const: "code" }, value: { type: "string", minLength: 1, maxLength: 32 } },
};

export const contactCodeRefusal: JsonSchema = {
  type: "object",
  properties: {
    msg: { const: "wrong_code" },
    attempts_left: { type: "integer" },
    cause: { enum: ["no_attempts_left", "code_expired"] },
  },
};
