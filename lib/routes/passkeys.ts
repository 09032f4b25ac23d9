import type { PasskeyActor, PasskeyUseCases } from "../domain/passkeys/passkey-management";
import { jsonResult } from "../http/error-body";
import type { CommonCall } from "../http/route";
import { route } from "../http/route";
import { badAccessToken, subjectIdParam, v3Error } from "./schemas";

/** The v3 passkey routes (docs/passkeys.md): an application enrols and manages a user's passkeys, as with TOTP. */

/** Credential ids are base64url; the cap keeps the item's sort key under DynamoDB's 1,024 bytes. */
const CREDENTIAL_ID = { type: "string", pattern: "^[A-Za-z0-9_-]{16,1000}$" } as const;

const passkeyParams = {
  type: "object",
  required: ["subjectId", "id"],
  properties: {
    subjectId: subjectIdParam.properties.subjectId,
    id: { ...CREDENTIAL_ID, description: "credential id" },
  },
} as const;

export const passkeyView = {
  type: "object",
  required: ["id", "name", "createdAt", "backedUp", "deviceType", "transports"],
  properties: {
    id: { type: "string", description: "credential id (base64url)" },
    name: { type: "string" },
    createdAt: { type: "integer", description: "Unix time" },
    lastUsed: { type: "integer", description: "Unix time of the last sign-in with it" },
    backedUp: { type: "boolean", description: "synced to other devices (a multi-device passkey)" },
    deviceType: { enum: ["singleDevice", "multiDevice"] },
    transports: { type: "array", items: { type: "string" } },
  },
} as const;

const passkeyList = { type: "array", items: passkeyView } as const;

const creationOptions = {
  type: "object",
  required: ["challenge", "rp", "user", "pubKeyCredParams"],
  description:
    "PublicKeyCredentialCreationOptionsJSON (WebAuthn Level 3): give it to PublicKeyCredential.parseCreationOptionsFromJSON",
  properties: {
    challenge: { type: "string" },
    rp: { type: "object", properties: { id: { type: "string" }, name: { type: "string" } } },
    user: { type: "object", properties: { id: { type: "string" }, name: { type: "string" } } },
    pubKeyCredParams: { type: "array", items: { type: "object" } },
  },
} as const;

const passkeyName = { type: "string", minLength: 1, maxLength: 64 } as const;

const base64url = (maxLength: number) => ({ type: "string", pattern: "^[A-Za-z0-9_-]*={0,2}$", maxLength }) as const;

/** RegistrationResponseJSON, as credential.toJSON() gives it; the library checks the rest. */
const attachBody = {
  type: "object",
  additionalProperties: false,
  required: ["response"],
  properties: {
    response: {
      type: "object",
      required: ["id", "rawId", "type", "response"],
      properties: {
        id: CREDENTIAL_ID,
        rawId: CREDENTIAL_ID,
        type: { const: "public-key" },
        authenticatorAttachment: { type: "string", maxLength: 32 },
        clientExtensionResults: { type: "object" },
        response: {
          type: "object",
          required: ["clientDataJSON", "attestationObject"],
          properties: {
            clientDataJSON: base64url(8192),
            attestationObject: base64url(65536),
            transports: { type: "array", maxItems: 8, items: { type: "string", maxLength: 32 } },
          },
        },
      },
    },
    name: passkeyName,
  },
} as const;

const renameBody = {
  type: "object",
  additionalProperties: false,
  required: ["name"],
  properties: { name: passkeyName },
} as const;

/** Handed the security group's use cases; reads `passkeys` only when a call runs. */
type Handed = { passkeys: PasskeyUseCases };

/** Who acted, for the change's security event (recorded in its transaction, in both modes). */
function actor(call: CommonCall): PasskeyActor {
  const p = call.principal;
  return {
    ts: Date.now(),
    cId: p?.clientId ?? "user",
    ip: call.sourceIp,
    ua: call.userAgent,
    ...(p?.mode === "user" && p.via === "bearer" && { sid: p.sid }),
  };
}

const listRoute = (uc: Handed) =>
  route({
    id: "security.passkey-list",
    method: "GET",
    path: "/svc/api/v3/users/{subjectId}/passkeys",
    version: "v3",
    auth: "bearer",
    permissions: { user: ["svc_api_usec"], system: ["svc_api_sys_usec"] },
    subject: { param: "subjectId", kind: "subjectId" },
    summary: "List the account's passkeys",
    description: "Name, creation, last use, backup state and transports; never the public key or the counter.",
    tags: ["security"],
    request: { params: subjectIdParam },
    responses: { 200: { description: "Passkeys, oldest first", schema: passkeyList }, 401: badAccessToken },
    handler: async (call) => jsonResult(200, await uc.passkeys.list(call.subject)),
  });

const optionsRoute = (uc: Handed) =>
  route({
    id: "security.passkey-options",
    method: "GET",
    path: "/svc/api/v3/users/{subjectId}/passkeys/attach/options",
    version: "v3",
    auth: "bearer",
    permissions: { user: ["svc_api_usec_chg"], system: ["svc_api_sys_usec_chg"] },
    subject: { param: "subjectId", kind: "subjectId" },
    userHeaders: true,
    event: { type: "passkey_options" },
    summary: "Start enrolling a passkey: the options for navigator.credentials.create()",
    description:
      "A discoverable credential with user verification, for the configured RP ID. The challenge is signed for this account and lives 5 minutes; nothing is stored until POST attach.",
    tags: ["security"],
    request: { params: subjectIdParam },
    responses: {
      200: { description: "Creation options (JSON)", schema: creationOptions },
      401: badAccessToken,
      404: { description: "unknown_user", schema: v3Error },
    },
    handler: async (call) => jsonResult(200, await uc.passkeys.creationOptions(call.subject)),
  });

const attachRoute = (uc: Handed) =>
  route({
    id: "security.passkey-attach",
    method: "POST",
    path: "/svc/api/v3/users/{subjectId}/passkeys/attach",
    version: "v3",
    auth: "bearer",
    permissions: { user: ["svc_api_usec_chg"], system: ["svc_api_sys_usec_chg"] },
    subject: { param: "subjectId", kind: "subjectId" },
    userHeaders: true,
    event: { type: "passkey_add", inTransaction: true },
    summary: "Finish enrolling a passkey: the browser's answer to the creation options",
    description:
      "response is credential.toJSON() of the created credential. Checked: the challenge (this account's, alive, used once), the origin (the issuer's or passkeys.origins), the RP ID and user verification.",
    tags: ["security"],
    request: { params: subjectIdParam, body: { contentType: "json", schema: attachBody, required: true } },
    responses: {
      201: { description: "The new passkey", schema: passkeyView },
      400: { description: "wrong_passkey; wrong_values", schema: v3Error },
      401: badAccessToken,
    },
    handler: async (call) => jsonResult(201, await uc.passkeys.add(call.subject, call.body, actor(call))),
  });

const renameRoute = (uc: Handed) =>
  route({
    id: "security.passkey-rename",
    method: "POST",
    path: "/svc/api/v3/users/{subjectId}/passkeys/{id}",
    version: "v3",
    auth: "bearer",
    permissions: { user: ["svc_api_usec_chg"], system: ["svc_api_sys_usec_chg"] },
    subject: { param: "subjectId", kind: "subjectId" },
    userHeaders: true,
    event: { type: "passkey_rename" },
    summary: "Rename a passkey",
    tags: ["security"],
    request: { params: passkeyParams, body: { contentType: "json", schema: renameBody, required: true } },
    responses: {
      200: { description: "The renamed passkey", schema: passkeyView },
      400: { description: "wrong_values", schema: v3Error },
      401: badAccessToken,
      404: { description: "unknown_passkey", schema: v3Error },
    },
    handler: async (call) => jsonResult(200, await uc.passkeys.rename(call.subject, call.params.id, call.body.name)),
  });

const deleteRoute = (uc: Handed) =>
  route({
    id: "security.passkey-delete",
    method: "DELETE",
    path: "/svc/api/v3/users/{subjectId}/passkeys/{id}",
    version: "v3",
    auth: "bearer",
    permissions: { user: ["svc_api_usec_chg"], system: ["svc_api_sys_usec_chg"] },
    subject: { param: "subjectId", kind: "subjectId" },
    userHeaders: true,
    event: { type: "passkey_delete", inTransaction: true },
    summary: "Delete a passkey: it no longer signs in",
    tags: ["security"],
    request: { params: passkeyParams },
    responses: {
      204: { description: "Deleted" },
      401: badAccessToken,
      404: { description: "unknown_passkey", schema: v3Error },
    },
    handler: async (call) => {
      await uc.passkeys.remove(call.subject, call.params.id, actor(call));
      return jsonResult(204, undefined);
    },
  });

export const passkeyRoutes = (uc: Handed) => [
  listRoute(uc),
  optionsRoute(uc),
  attachRoute(uc),
  renameRoute(uc),
  deleteRoute(uc),
];
