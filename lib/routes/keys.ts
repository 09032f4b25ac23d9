import { EMERGENCY_WARNING, type KeyUseCases } from "../domain/keys/keys";
import { jsonResult, NO_STORE } from "../http/error-body";
import { group, route } from "../http/route";
import { adminChangeEvent } from "./admin-change";
import { badAccessToken, v3Error } from "./schemas";

/** Schemas of the signing keys' admin calls (interface §4.19); times in seconds since the epoch. */

const keyView = {
  type: "object",
  required: ["kid", "alg", "use", "state", "createdAt", "activatesAt"],
  properties: {
    kid: { type: "string" },
    alg: {
      enum: ["ES256", "RS256"],
      description: "ES256: access tokens (and ID tokens of clients that chose it); RS256: ID tokens",
    },
    use: { const: "sig" },
    state: {
      enum: ["next", "signing", "retiring"],
      description:
        "next: published in JWKS, not signing yet; signing: signs new tokens; retiring: signs no more, still published and verifying",
    },
    createdAt: { type: "integer" },
    activatesAt: { type: "integer", description: "when it starts (or started) signing" },
    retiresAt: { type: "integer", description: "when it leaves JWKS; absent until a rotation retires it" },
    signsUntil: {
      type: "integer",
      description: "a signing key a staged rotation retired: when its successor takes over",
    },
  },
} as const;

const keyList = {
  type: "object",
  required: ["keys"],
  properties: { keys: { type: "array", items: keyView, description: "newest activation first" } },
} as const;

const rotateBody = {
  type: "object",
  additionalProperties: false,
  properties: {
    now: {
      type: "boolean",
      description: "true: the emergency rotation (the new keys sign at once); false or absent: staged",
    },
  },
} as const;

const rotationView = {
  type: "object",
  required: ["mode", "keys", "retired", "retiredUntil"],
  properties: {
    mode: { enum: ["staged", "now"] },
    keys: {
      type: "array",
      items: {
        type: "object",
        required: ["alg", "kid", "activatesAt"],
        properties: { alg: { type: "string" }, kid: { type: "string" }, activatesAt: { type: "integer" } },
      },
      description: "one new key per algorithm",
    },
    retired: { type: "array", items: { type: "string" }, description: "kids of the keys it retired" },
    retiredUntil: { type: "integer", description: "when the retired keys leave JWKS; they verify until then" },
    warning: { type: "string", description: "now only: what an emergency rotation does and does not do" },
  },
} as const;

/** Shared by both calls: v3, system mode only. */
const keysCall = { version: "v3", auth: "bearer", tags: ["keys"] } as const;

const listRoute = (keys: KeyUseCases) =>
  route({
    id: "keys.list",
    method: "GET",
    path: "/svc/admin/api/v3/keys",
    ...keysCall,
    permissions: { system: ["svc_api_sys_keys"] },
    summary: "List the signing keys with their state (interface §4.19)",
    description:
      "Every key still published in JWKS, with what it does now: next, signing or retiring. Public facts only: never key material. One consistent Query.",
    responses: {
      200: { description: "The keys, newest activation first", schema: keyList },
      401: badAccessToken,
    },
    handler: async () => jsonResult(200, await keys.list(), NO_STORE),
  });

const rotateRoute = (keys: KeyUseCases) =>
  route({
    id: "keys.rotate",
    method: "POST",
    path: "/svc/admin/api/v3/keys/rotate",
    recentSignIn: true,
    ...keysCall,
    permissions: { system: ["svc_api_sys_keys_chg"] },
    summary: "Rotate the signing keys, staged or at once (interface §4.19)",
    description: `As \`svc-admin keys rotate [--now]\`: a new key per algorithm, the live ones retired, with the calling application's security event, in one transaction. Staged (the default), the new keys are published now and sign once every verifier's JWKS cache holds them; the old keys sign until then and verify until their tokens expire. A staged rotation while the last one's keys have not started signing is refused (409 rotation_under_way). now: true: ${EMERGENCY_WARNING}`,
    request: { body: { contentType: "json", schema: rotateBody } },
    responses: {
      200: { description: "The new keys, the retired ones, and until when those verify", schema: rotationView },
      400: { description: "input_error", schema: v3Error },
      401: badAccessToken,
      409: { description: "rotation_under_way, concurrent_rotation", schema: v3Error },
    },
    handler: async (call) =>
      jsonResult(200, await keys.rotate(call.body?.now === true, adminChangeEvent(call)), NO_STORE),
  });

export const keysRoutes = (keys: KeyUseCases) => group("clients", [listRoute(keys), rotateRoute(keys)]);
