import { INSTANCE_ID_PATTERN } from "../../domain/accounts/instance-id";
import { SUB_PATTERN } from "../../domain/accounts/new-account";
import type { JsonSchema } from "../route";

/** Schemas shared by several routes; OpenAPI lists them as they are. */

/**
 * Bounds for free numbers that are stored as they come (user properties, group
 * attributes): DynamoDB refuses magnitudes below 1e-130 and the document client numbers
 * beyond 2^53, and either gave a 500. Applies to numbers only: merge into a schema that
 * also allows strings or booleans.
 */
export const STORABLE_NUMBER_BOUNDS: JsonSchema = {
  minimum: -Number.MAX_SAFE_INTEGER,
  maximum: Number.MAX_SAFE_INTEGER,
  not: { type: "number", exclusiveMinimum: -1e-130, exclusiveMaximum: 1e-130, not: { const: 0 } },
};

export const subjectIdParam: JsonSchema = {
  type: "object",
  required: ["subjectId"],
  properties: { subjectId: { type: "string", pattern: SUB_PATTERN, description: "Account subject id (sub)" } },
};

/** An instanceId in the place API Gateway requires to be called subjectId (see routes.ts). */
export const instanceIdInPath: JsonSchema = {
  type: "object",
  required: ["subjectId"],
  properties: {
    subjectId: { type: "string", pattern: INSTANCE_ID_PATTERN, description: "meta.instanceId of the account" },
  },
};

export const v3Error: JsonSchema = {
  type: "object",
  required: ["type", "error", "desc"],
  properties: {
    type: { enum: ["security_error", "input_error", "process_error"] },
    error: { type: "string" },
    desc: { type: "string" },
    pos: { type: "string" },
    params: { type: "object" },
    errors: {
      type: "array",
      items: {
        type: "object",
        required: ["type", "error", "desc"],
        properties: {
          type: { type: "string" },
          error: { type: "string" },
          desc: { type: "string" },
          pos: { type: "string" },
          params: { type: "object" },
        },
      },
    },
  },
};

export const v2Error: JsonSchema = {
  type: "object",
  required: ["errors"],
  properties: {
    errors: {
      type: "array",
      items: {
        type: "object",
        required: ["code", "desc"],
        properties: { code: { type: "string" }, desc: { type: "string" }, params: { type: "object" } },
      },
    },
  },
};

export const oauthError: JsonSchema = {
  type: "object",
  required: ["error"],
  properties: {
    error: {
      enum: [
        "invalid_request",
        "invalid_client",
        "invalid_grant",
        "unauthorized_client",
        "unsupported_grant_type",
        "invalid_scope",
      ],
    },
    error_description: { type: "string" },
  },
};

/** Names: printable text, no control characters. */
export const personName: JsonSchema = {
  type: "string",
  minLength: 1,
  maxLength: 256,
  pattern: "^[^\\u0000-\\u001f\\u007f]*$",
};
