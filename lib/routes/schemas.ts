import { INSTANCE_ID_PATTERN } from "../domain/accounts/instance-id";
import { SUB_PATTERN } from "../domain/accounts/new-account";
import { GROUP_ID_PATTERN } from "../domain/groups/group";

/** Schemas shared by several routes; OpenAPI lists them as they are. */

/**
 * Bounds for free numbers that are stored as they come (user properties, group
 * attributes): DynamoDB refuses magnitudes below 1e-130 and the document client numbers
 * beyond 2^53, and either gave a 500. Applies to numbers only: merge into a schema that
 * also allows strings or booleans.
 */
export const STORABLE_NUMBER_BOUNDS = {
  minimum: -Number.MAX_SAFE_INTEGER,
  maximum: Number.MAX_SAFE_INTEGER,
  not: { type: "number", exclusiveMinimum: -1e-130, exclusiveMaximum: 1e-130, not: { const: 0 } },
} as const;

/**
 * Names of the free-form maps (user properties, group attributes): keys the JavaScript
 * object model gives a meaning reached the DynamoDB marshaller and gave a 500.
 */
export const FREE_KEY_NAME = {
  not: { enum: ["constructor", "__proto__", "prototype"] },
  description: "any name but constructor, __proto__ and prototype",
} as const;

export const subjectIdParam = {
  type: "object",
  required: ["subjectId"],
  properties: { subjectId: { type: "string", pattern: SUB_PATTERN, description: "Account subject id (sub)" } },
} as const;

/** An instanceId in the place API Gateway requires to be called subjectId (see routes.ts). */
export const instanceIdInPath = {
  type: "object",
  required: ["subjectId"],
  properties: {
    subjectId: { type: "string", pattern: INSTANCE_ID_PATTERN, description: "meta.instanceId of the account" },
  },
} as const;

export const v3Error = {
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
} as const;

export const v2Error = {
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
} as const;

export const oauthError = {
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
} as const;

/**
 * The token endpoint's error body: oauthError's codes, the RFC 8628 3.5 polling codes a QR
 * login answers and RFC 8707's invalid_target, so a generated client handles every one.
 */
export const tokenError = {
  type: "object",
  required: ["error"],
  properties: {
    error: {
      enum: [
        ...oauthError.properties.error.enum,
        "authorization_pending",
        "access_denied",
        "expired_token",
        "slow_down",
        "invalid_target",
      ],
    },
    error_description: { type: "string" },
  },
} as const;

/** Printable text: no C0 or C1 control characters (C1 holds CSI, which terminals obey as ESC [). */
export const PRINTABLE_PATTERN = "^[^\\u0000-\\u001f\\u007f-\\u009f]*$";

/** Names: printable text, no control characters. */
export const personName = {
  type: "string",
  minLength: 1,
  maxLength: 256,
  pattern: PRINTABLE_PATTERN,
} as const;

export const qrCodeParam = {
  type: "object",
  required: ["qrCode"],
  properties: { qrCode: { type: "string", pattern: "^[A-Za-z0-9_-]{16,64}$" } },
} as const;

export const qrLoginView = {
  type: "object",
  required: ["client_id", "scopes", "expires_at"],
  properties: {
    client_id: { type: "string" },
    scopes: { type: "array", items: { type: "string" } },
    ip: { type: "string" },
    user_agent: { type: "string" },
    expires_at: { type: "integer" },
  },
} as const;

export const groupIdParam = {
  type: "object",
  required: ["groupId"],
  properties: { groupId: { type: "string", pattern: GROUP_ID_PATTERN, description: "Group id" } },
} as const;

/** Path parameters of a call on one listed item of an account: `{subjectId}/.../{id}`. */
export function subjectItemParams(idDescription: string) {
  return {
    type: "object",
    required: ["subjectId", "id"],
    properties: {
      subjectId: { type: "string", pattern: "^[A-Za-z0-9][A-Za-z0-9._@~+-]{0,127}$" },
      id: { type: "string", pattern: "^[A-Za-z0-9_-]{1,64}$", description: idDescription },
    },
  } as const;
}

/** A query's number, already checked by its schema's pattern: undefined when the query leaves it out. */
export const queryNumber = (text: string | undefined): number | undefined =>
  text === undefined ? undefined : Number(text);

export const badAccessToken = { description: "bad_access_token", schema: v3Error } as const;
export const accessDenied = { description: "access_denied", schema: v2Error } as const;
