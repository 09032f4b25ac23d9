import { RECOVERY_CODE_COUNT, type RecoveryCodeUseCases } from "../domain/security/recovery-codes";
import { jsonResult } from "../http/error-body";
import { route } from "../http/route";
import { badAccessToken, subjectIdParam, v3Error } from "./schemas";

/** Recovery codes (interface §4.15a): a fallback second factor, beside the TOTP routes. */

export const recoveryCodeStatusView = {
  type: "object",
  required: ["remaining"],
  properties: {
    remaining: { type: "integer", description: "unused codes of the current set; 0 when none was generated" },
    createdAt: { type: "integer", description: "Unix time the current set was generated; absent when none was" },
  },
} as const;

export const recoveryCodeSet = {
  type: "object",
  required: ["codes", "createdAt"],
  properties: {
    codes: {
      type: "array",
      minItems: RECOVERY_CODE_COUNT,
      maxItems: RECOVERY_CODE_COUNT,
      items: { type: "string", pattern: "^[0-9a-z]{5}-[0-9a-z]{5}$" },
      description: "shown this once; each signs in once in place of a TOTP code",
    },
    createdAt: { type: "integer" },
  },
} as const;

/** Handed the security group's use cases; reads `recoveryCodes` only when a call runs. */
type Handed = { recoveryCodes: RecoveryCodeUseCases };

const statusRoute = (uc: Handed) =>
  route({
    id: "security.recovery-codes-get",
    method: "GET",
    path: "/svc/api/v3/users/{subjectId}/recovery-codes",
    version: "v3",
    auth: "bearer",
    permissions: { user: ["svc_api_usec"], system: ["svc_api_sys_usec"] },
    subject: { param: "subjectId", kind: "subjectId" },
    summary: "How many recovery codes are left (interface §4.15a)",
    tags: ["security"],
    request: { params: subjectIdParam },
    responses: {
      200: { description: "remaining and createdAt; never the codes", schema: recoveryCodeStatusView },
      401: badAccessToken,
      404: { description: "unknown_user", schema: v3Error },
    },
    handler: async (call) => jsonResult(200, await uc.recoveryCodes.status(call.subject)),
  });

const generateRoute = (uc: Handed) =>
  route({
    id: "security.recovery-codes-generate",
    method: "POST",
    path: "/svc/api/v3/users/{subjectId}/recovery-codes",
    version: "v3",
    auth: "bearer",
    permissions: { user: ["svc_api_usec_chg"], system: ["svc_api_sys_usec_chg"] },
    subject: { param: "subjectId", kind: "subjectId" },
    userHeaders: true,
    event: { type: "recovery_codes_generate", inTransaction: true },
    summary: "Generate a new set of recovery codes (interface §4.15a)",
    description:
      "Ten single-use codes, answered this once and stored as SHA-256 digests. The new set replaces the old one at once: the old codes stop working. Each code signs in once in place of a TOTP code (password grant recovery_code, the sign-in page); they do not count as a second-factor method for requiredFactor.",
    tags: ["security"],
    request: { params: subjectIdParam },
    responses: {
      200: { description: "The new codes", schema: recoveryCodeSet },
      401: badAccessToken,
      404: { description: "unknown_user", schema: v3Error },
    },
    handler: async (call) => {
      const context = { cId: call.principal?.clientId ?? "user", ip: call.sourceIp, ua: call.userAgent };
      return jsonResult(200, await uc.recoveryCodes.generate(call.subject, context));
    },
  });

export const recoveryCodeRoutes = (uc: Handed) => [statusRoute(uc), generateRoute(uc)];
