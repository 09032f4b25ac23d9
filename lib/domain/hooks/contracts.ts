import type { FromSchema } from "json-schema-to-ts";

/**
 * The hooks' JSON contracts (docs/hooks.md), version 1: what each hook is sent and what it
 * may answer. Every input carries `version` and `hook`, so one target can serve several
 * hooks and refuse a version it does not know. Compiled ahead of time into
 * lib/compiled/hook-validators.ts (npm run compile-schemas), as the route schemas are.
 */
export const HOOK_CONTRACT_VERSION = "1";

/** Synchronous hooks: the flow waits for the answer and fails closed without one. */
export const SYNC_HOOKS = ["preRegistration", "userMigration", "preTokenIssue", "preSignIn", "customMessage"] as const;
/** Asynchronous hooks: told after the fact, retried, never undo what happened. */
export const ASYNC_HOOKS = ["postConfirmation", "postSignIn"] as const;
export const HOOK_NAMES = [...SYNC_HOOKS, ...ASYNC_HOOKS] as const;

export type SyncHookName = (typeof SYNC_HOOKS)[number];
export type AsyncHookName = (typeof ASYNC_HOOKS)[number];
export type HookName = (typeof HOOK_NAMES)[number];

/** Added claims, as JSON, may take at most this many bytes per token (preTokenIssue). */
export const MAX_ADDED_CLAIMS_BYTES = 2048;
/** A refusal's message is shown to the user as it is: short, one line. */
const MESSAGE = { type: "string", minLength: 1, maxLength: 200, pattern: "^[^\\r\\n]*$" } as const;
const TEXT = { type: "string", maxLength: 256 } as const;
const CONTACT = {
  type: "object",
  additionalProperties: false,
  required: ["value", "verified"],
  properties: { value: { type: "string", minLength: 1, maxLength: 256 }, verified: { type: "boolean" } },
} as const;
const NAMES = { family_name: TEXT, given_name: TEXT, middle_name: TEXT } as const;
const LANGUAGE = { enum: ["ru", "en"] } as const;

function envelope<const H extends HookName, const P extends Record<string, object>, const R extends readonly string[]>(
  hook: H,
  properties: P,
  required: R,
) {
  return {
    type: "object",
    additionalProperties: false,
    required: ["version", "hook", ...required],
    properties: { version: { const: HOOK_CONTRACT_VERSION }, hook: { const: hook }, ...properties },
  } as const;
}

/** Who asks: the application and the browser or device behind it. */
const CALLER = {
  clientId: { type: "string" },
  ip: { type: "string" },
  userAgent: { type: "string" },
} as const;

const DECISION = {
  type: "object",
  additionalProperties: false,
  required: ["action"],
  properties: { action: { enum: ["allow", "deny"] }, message: MESSAGE },
} as const;

export const hookSchemas = {
  preRegistration: {
    input: envelope(
      "preRegistration",
      {
        ...CALLER,
        language: LANGUAGE,
        user: {
          type: "object",
          additionalProperties: false,
          required: ["sub"],
          properties: { sub: { type: "string" }, email: CONTACT, phone_number: CONTACT, ...NAMES },
        },
      },
      ["clientId", "language", "user"],
    ),
    output: {
      type: "object",
      additionalProperties: false,
      required: ["action"],
      properties: {
        action: { enum: ["allow", "deny"] },
        message: MESSAGE,
        /** Contacts the hook vouches for: stored as confirmed, no code sent. */
        confirm: {
          type: "object",
          additionalProperties: false,
          properties: { email: { type: "boolean" }, phone_number: { type: "boolean" } },
        },
      },
    },
  },
  userMigration: {
    input: envelope(
      "userMigration",
      {
        ...CALLER,
        trigger: { enum: ["signIn", "forgotPassword"] },
        username: { type: "string", minLength: 1 },
        /** Only for trigger signIn: the target must be trusted (docs/hooks.md). */
        password: { type: "string" },
      },
      ["trigger", "username"],
    ),
    output: {
      type: "object",
      additionalProperties: false,
      required: ["action"],
      properties: {
        /** migrate: the old system knows the user (and, at a sign-in, the password); unknown: it does not. */
        action: { enum: ["migrate", "unknown"] },
        user: {
          type: "object",
          additionalProperties: false,
          properties: { sub: { type: "string" }, email: CONTACT, phone_number: CONTACT, ...NAMES },
        },
      },
    },
  },
  preTokenIssue: {
    input: envelope(
      "preTokenIssue",
      {
        clientId: { type: "string" },
        grant: { enum: ["password", "refresh_token", "authorization_code", "qr", "device_code"] },
        sub: { type: "string" },
        scopes: { type: "array", items: { type: "string" } },
        // The organization the tokens act for (organization=<id>), with the member's roles.
        organization: {
          type: "object",
          additionalProperties: false,
          required: ["id", "roles"],
          properties: { id: { type: "string" }, roles: { type: "array", items: { type: "string" } } },
        },
      },
      ["clientId", "grant", "sub", "scopes"],
    ),
    output: {
      type: "object",
      additionalProperties: false,
      properties: {
        accessToken: { type: "object", properties: { claims: { type: "object" } }, additionalProperties: false },
        idToken: { type: "object", properties: { claims: { type: "object" } }, additionalProperties: false },
      },
    },
  },
  preSignIn: {
    input: envelope("preSignIn", { ...CALLER, sub: { type: "string" }, method: { type: "string" } }, [
      "clientId",
      "sub",
      "method",
    ]),
    output: DECISION,
  },
  customMessage: {
    input: envelope(
      "customMessage",
      {
        channel: { enum: ["sms", "email"] },
        message: { type: "string" },
        language: LANGUAGE,
        to: { type: "string" },
        subject: { type: "string" },
        text: { type: "string" },
        /** The placeholder that stands for the code (or password) in `text`; absent when none. */
        placeholder: { type: "string" },
      },
      ["channel", "message", "language", "to", "text"],
    ),
    output: {
      type: "object",
      additionalProperties: false,
      properties: {
        subject: { type: "string", minLength: 1, maxLength: 200 },
        text: { type: "string", minLength: 1, maxLength: 4000 },
      },
    },
  },
  postConfirmation: {
    input: envelope(
      "postConfirmation",
      { clientId: { type: "string" }, sub: { type: "string" }, email: CONTACT, phone_number: CONTACT },
      ["clientId", "sub"],
    ),
    output: {},
  },
  postSignIn: {
    input: envelope(
      "postSignIn",
      { ...CALLER, sub: { type: "string" }, method: { type: "string" }, sid: { type: "string" } },
      ["clientId", "sub", "method"],
    ),
    output: {},
  },
} as const;

type Schemas = typeof hookSchemas;

/** Each hook's input and answer as types (resolved once here, so generic code stays cheap to check). */
export interface HookInputs {
  preRegistration: FromSchema<Schemas["preRegistration"]["input"]>;
  userMigration: FromSchema<Schemas["userMigration"]["input"]>;
  preTokenIssue: FromSchema<Schemas["preTokenIssue"]["input"]>;
  preSignIn: FromSchema<Schemas["preSignIn"]["input"]>;
  customMessage: FromSchema<Schemas["customMessage"]["input"]>;
  postConfirmation: FromSchema<Schemas["postConfirmation"]["input"]>;
  postSignIn: FromSchema<Schemas["postSignIn"]["input"]>;
}
export interface HookOutputs {
  preRegistration: FromSchema<Schemas["preRegistration"]["output"]>;
  userMigration: FromSchema<Schemas["userMigration"]["output"]>;
  preTokenIssue: FromSchema<Schemas["preTokenIssue"]["output"]>;
  preSignIn: FromSchema<Schemas["preSignIn"]["output"]>;
  customMessage: FromSchema<Schemas["customMessage"]["output"]>;
}

export type HookInput<N extends HookName> = HookInputs[N];
export type HookOutput<N extends SyncHookName> = HookOutputs[N];
/** An input without its envelope, as the domain builds it. */
export type HookRequest<N extends HookName> = Omit<HookInputs[N], "version" | "hook">;
