import { SUB_PATTERN } from "./new-account";

/**
 * One line of `svc-admin users export` (docs/administration.md), as JSON Schema: the contract
 * other systems read, kept in `docs/schemas/user-export.schema.json` (a test checks the file
 * is this object). `svc-admin users import` reads the same lines back.
 */

const integer = { type: "integer", minimum: 0 } as const;
const base64 = { type: "string", pattern: "^[A-Za-z0-9+/]*={0,2}$" } as const;

const contact = {
  type: "object",
  additionalProperties: false,
  required: ["value", "verified"],
  properties: { value: { type: "string" }, verified: { type: "boolean" } },
} as const;

export const scryptHashSchema = {
  type: "object",
  additionalProperties: false,
  required: ["alg", "N", "r", "p", "keyLength", "salt", "hash"],
  properties: {
    alg: { const: "scrypt" },
    N: { type: "integer", minimum: 2 },
    r: { type: "integer", minimum: 1 },
    p: { type: "integer", minimum: 1 },
    keyLength: { type: "integer", minimum: 1 },
    salt: base64,
    hash: base64,
    unnormalized: {
      const: true,
      description: "Another system's hash of the password as typed (ours hash its NFKC form)",
    },
  },
} as const;

const passwordHash = {
  description: "Ours is scrypt; the others are imported hashes not yet replaced by a sign-in.",
  oneOf: [
    scryptHashSchema,
    {
      type: "object",
      additionalProperties: false,
      required: ["alg", "hash"],
      properties: { alg: { const: "bcrypt" }, hash: { type: "string", pattern: "^\\$2[aby]\\$" } },
    },
    {
      type: "object",
      additionalProperties: false,
      required: ["alg", "iterations", "salt", "hash"],
      properties: {
        alg: { const: "pbkdf2-sha256" },
        iterations: { type: "integer", minimum: 1 },
        salt: base64,
        hash: base64,
      },
    },
    {
      type: "object",
      additionalProperties: false,
      required: ["alg", "hash"],
      properties: { alg: { const: "argon2id" }, hash: { type: "string", pattern: "^\\$argon2id\\$" } },
    },
  ],
} as const;

export const exportLineSchema = {
  $schema: "http://json-schema.org/draft-07/schema#",
  $id: "https://svc-identity.example/schemas/user-export.schema.json",
  title: "svc-identity user export line",
  description: "One account per line (JSON lines). TOTP secrets and passkeys appear only with --with-factors.",
  type: "object",
  additionalProperties: false,
  required: ["sub", "locked", "created_at", "updated_at", "groups", "rights"],
  properties: {
    sub: { type: "string", pattern: SUB_PATTERN },
    family_name: { type: "string" },
    given_name: { type: "string" },
    middle_name: { type: "string" },
    locked: { type: "boolean" },
    email: contact,
    phone_number: contact,
    created_at: integer,
    updated_at: integer,
    last_login_at: integer,
    state: {
      type: "object",
      additionalProperties: false,
      required: ["name"],
      properties: {
        name: { enum: ["initial", "active", "inactivityLock", "untouchable"] },
        checkedOn: integer,
        on: integer,
        till: integer,
      },
    },
    required_factor: { type: "integer", minimum: 1, maximum: 2 },
    need_password_change: { type: "boolean" },
    methods_locked: { type: "array", items: { type: "string" } },
    password_hash: passwordHash,
    password_changed_at: integer,
    password_history: { type: "array", items: passwordHash },
    groups: {
      type: "array",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["profile", "id", "added_at"],
        properties: { profile: { type: "string" }, id: { type: "string" }, added_at: integer },
      },
    },
    rights: {
      description:
        "Rights the account holds: the object as the interface names it (a sub, its|<app>, grps|<id>|<profile>).",
      type: "array",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["object", "right", "tags"],
        properties: {
          object: { type: "string" },
          right: { type: "string" },
          tags: { type: "array", items: { type: "string" } },
        },
      },
    },
    totps: {
      description: "TOTP generators with their secrets in the clear (base32): the file is as secret as the secrets.",
      type: "array",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["id", "name", "digits", "secret"],
        properties: {
          id: { type: "string" },
          name: { type: "string" },
          digits: { type: "integer", minimum: 6, maximum: 8 },
          secret: { type: "string", pattern: "^[A-Z2-7]+=*$" },
          last_step: integer,
        },
      },
    },
    passkeys: {
      type: "array",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["id", "public_key", "counter", "transports", "backed_up", "device_type", "name", "created_at"],
        properties: {
          id: { type: "string" },
          public_key: { type: "string" },
          counter: integer,
          transports: { type: "array", items: { type: "string" } },
          backed_up: { type: "boolean" },
          device_type: { enum: ["singleDevice", "multiDevice"] },
          name: { type: "string" },
          created_at: integer,
          last_used: integer,
          aaguid: { type: "string" },
        },
      },
    },
  },
} as const;
