import type { PasskeyUseCases } from "../domain/passkeys/passkey-management";
import type { AccountSecurityUseCases } from "../domain/security/account-security";
import type { QrDecisionUseCases } from "../domain/security/qr-decisions";
import type { RecoveryCodeUseCases } from "../domain/security/recovery-codes";
import type { TotpUseCases } from "../domain/security/totp-management";
import { jsonResult } from "../http/error-body";
import type { CommonCall } from "../http/route";
import { group, route } from "../http/route";
import { passkeyRoutes } from "./passkeys";
import { recoveryCodeRoutes } from "./recovery-codes";
import { badAccessToken, qrCodeParam, qrLoginView, subjectIdParam, subjectItemParams, v3Error } from "./schemas";

export const authModesSchema = {
  type: "object",
  required: ["needPasswordChange", "methodsLocked"],
  properties: {
    requiredFactor: { type: "integer", description: "2: a second factor is required" },
    needPasswordChange: { type: "boolean" },
    methodsLocked: { type: "array", items: { type: "string" } },
  },
} as const;

/** interface §4.12 body: any of the three, with only the values the spec allows. */
export const authModesBody = {
  type: "object",
  additionalProperties: false,
  minProperties: 1,
  properties: {
    requiredFactor: { enum: [null, 2], description: "null disables, 2 enables a second factor" },
    needPasswordChange: { const: true, description: "only true: force a change at the next login" },
    methodsLocked: { type: "array", maxItems: 1, items: { const: "password" }, description: "[] unlocks" },
  },
} as const;

export const stateSchema = {
  type: "object",
  required: ["name"],
  properties: {
    name: { enum: ["initial", "active", "inactivityLock", "untouchable"] },
    checkedOn: { type: "integer" },
    on: { type: "integer" },
    till: { type: "integer" },
  },
} as const;

/** interface §4.13 body. */
export const stateBody = {
  type: "object",
  additionalProperties: false,
  required: ["name"],
  properties: {
    name: { const: "untouchable" },
    // The upper bound keeps it a safe integer for DynamoDB (a larger one gave a 500); year 9999.
    till: {
      type: "integer",
      minimum: 0,
      maximum: 253_402_300_799,
      description: "Unix time; now or earlier ends the status",
    },
  },
} as const;

/** interface §2.7 TOTP generators; secrets are never shown after enrolment. */
export const totpList = {
  type: "array",
  items: {
    type: "object",
    required: ["id", "len", "name"],
    properties: { id: { type: "string" }, len: { type: "integer" }, name: { type: "string" } },
  },
} as const;

export const totpIssued = {
  type: "object",
  required: ["base64QRCode", "base32Secret"],
  properties: {
    base64QRCode: { type: "string", description: "PNG, base64: an otpauth://totp URI with issuer and account" },
    base32Secret: { type: "string", description: "the same secret for typing in; valid for enrolment 10 minutes" },
  },
} as const;

export const totpAttachBody = {
  type: "object",
  additionalProperties: false,
  required: ["base32Secret", "otpCode"],
  properties: {
    base32Secret: { type: "string", pattern: "^[A-Za-z2-7]{16,128}=*$", description: "issued by GET attach/qr" },
    otpCode: { type: "string", minLength: 1, maxLength: 16 },
    name: { type: "string", minLength: 1, maxLength: 64 },
  },
} as const;

export const totpParams = subjectItemParams("generator id from the list");

/** interface §4.10 set and check body. */
export const securityQuestionBody = {
  type: "object",
  additionalProperties: false,
  required: ["question", "answer"],
  properties: {
    question: { type: "string", minLength: 1, maxLength: 256 },
    answer: { type: "string", minLength: 1, maxLength: 256 },
  },
} as const;

export const securityQuestionView = {
  type: "object",
  required: ["question"],
  properties: { question: { type: "string" } },
} as const;

/** What the security routes are handed (functions/security.ts builds them from the container). */
export interface SecurityUseCases {
  account: AccountSecurityUseCases;
  totp: TotpUseCases;
  recoveryCodes: RecoveryCodeUseCases;
  passkeys: PasskeyUseCases;
  qrLogins: QrDecisionUseCases;
}

/** The signed-in user deciding a QR login (the route admits user tokens only). */
function userOf(call: CommonCall): string {
  if (call.principal?.mode !== "user") throw new Error("QR decisions are made by a user");
  return call.principal.sub;
}

/** Confirm or refuse a QR login as the signed-in user. */
function qrDecision(uc: SecurityUseCases, decision: "confirmed" | "refused") {
  return async (call: CommonCall & { params: { qrCode: string } }) => {
    await uc.qrLogins.decide(call.params.qrCode, decision, userOf(call));
    return jsonResult(204, undefined);
  };
}

const authGet = (uc: SecurityUseCases) =>
  route({
    id: "security.auth-get",
    method: "GET",
    path: "/svc/api/v3/users/{subjectId}/auth",
    version: "v3",
    auth: "bearer",
    permissions: { user: ["svc_api_usec"], system: ["svc_api_sys_usec"] },
    subject: { param: "subjectId", kind: "subjectId" },
    summary: "Read authentication modes (interface §4.12)",
    tags: ["security"],
    request: { params: subjectIdParam },
    responses: {
      200: { description: "requiredFactor, needPasswordChange, methodsLocked", schema: authModesSchema },
      401: { description: "bad_access_token", schema: v3Error },
      404: { description: "unknown_user", schema: v3Error },
    },
    handler: async (call) => jsonResult(200, await uc.account.authModes(call.subject, call.account)),
  });

const authChange = (uc: SecurityUseCases) =>
  route({
    id: "security.auth-change",
    method: "POST",
    path: "/svc/api/v3/users/{subjectId}/auth",
    version: "v3",
    auth: "bearer",
    permissions: { user: ["svc_api_usec_chg"], system: ["svc_api_sys_usec_chg"] },
    subject: { param: "subjectId", kind: "subjectId" },
    userHeaders: true,
    summary: "Change authentication modes (interface §4.12)",
    description:
      'requiredFactor null disables, 2 enables a second factor (400 has_not_sf_methods without a method: a TOTP generator, a passkey, or a confirmed e-mail or phone when codes by that channel are on; recovery codes do not count); needPasswordChange only true; methodsLocked only ["password"] or [] to unlock. Answers the resulting three fields; the login (password grant) enforces them.',
    tags: ["security"],
    request: { params: subjectIdParam, body: { contentType: "json", schema: authModesBody, required: true } },
    responses: {
      200: { description: "The resulting modes", schema: authModesSchema },
      400: { description: "has_not_sf_methods, wrong_values", schema: v3Error },
      401: { description: "bad_access_token", schema: v3Error },
      404: { description: "unknown_user", schema: v3Error },
    },
    handler: async (call) => jsonResult(200, await uc.account.changeAuthModes(call.subject, call.body, call.account)),
  });

const stateGet = (uc: SecurityUseCases) =>
  route({
    id: "security.state-get",
    method: "GET",
    path: "/svc/api/v3/users/{subjectId}/state",
    version: "v3",
    auth: "bearer",
    permissions: { user: ["svc_api_usec"], system: ["svc_api_sys_usec"] },
    subject: { param: "subjectId", kind: "subjectId" },
    summary: "Read the account state (interface §3.1, 4.13)",
    tags: ["security"],
    request: { params: subjectIdParam },
    responses: {
      200: { description: "initial, active {checkedOn}, inactivityLock {on}, untouchable {till}", schema: stateSchema },
      401: { description: "bad_access_token", schema: v3Error },
      404: { description: "unknown_user", schema: v3Error },
    },
    handler: async (call) => jsonResult(200, await uc.account.state(call.subject, call.account)),
  });

const stateChange = (uc: SecurityUseCases) =>
  route({
    id: "security.state-change",
    method: "POST",
    path: "/svc/api/v3/users/{subjectId}/state",
    version: "v3",
    auth: "bearer",
    permissions: { system: ["svc_api_sys_usec_chg"] },
    subject: { param: "subjectId", kind: "subjectId" },
    summary: "Make an account untouchable, or end it (interface §3.1, 4.13)",
    description:
      "name untouchable; without till the account is never locked for inactivity; till at or before now ends the status (the account counts as active from now).",
    tags: ["security"],
    request: { params: subjectIdParam, body: { contentType: "json", schema: stateBody, required: true } },
    responses: {
      204: { description: "Set" },
      400: { description: "wrong_values", schema: v3Error },
      401: { description: "bad_access_token", schema: v3Error },
      404: { description: "unknown_user", schema: v3Error },
    },
    handler: async (call) => {
      await uc.account.setUntouchable(call.subject, call.body.till);
      return jsonResult(204, undefined);
    },
  });

const secqsnGet = (uc: SecurityUseCases) =>
  route({
    id: "security.secqsn-get",
    method: "GET",
    path: "/svc/api/v3/users/{subjectId}/secQsn",
    version: "v3",
    auth: "bearer",
    permissions: { user: ["svc_api_usec"], system: ["svc_api_sys_usec"] },
    subject: { param: "subjectId", kind: "subjectId" },
    summary: "Read the security question (interface §4.10)",
    tags: ["security"],
    request: { params: subjectIdParam },
    responses: {
      200: { description: "The question (never the answer)", schema: securityQuestionView },
      401: badAccessToken,
      404: { description: "no_security_question", schema: v3Error },
    },
    handler: async (call) => jsonResult(200, await uc.account.question(call.subject)),
  });

const secqsnSet = (uc: SecurityUseCases) =>
  route({
    id: "security.secqsn-set",
    method: "POST",
    path: "/svc/api/v3/users/{subjectId}/secQsn",
    version: "v3",
    auth: "bearer",
    permissions: { user: ["svc_api_usec_chg"], system: ["svc_api_sys_usec_chg"] },
    subject: { param: "subjectId", kind: "subjectId" },
    userHeaders: true,
    event: { type: "secqsn_set" },
    summary: "Set or replace the security question (interface §4.10)",
    description: "The answer is stored as an scrypt hash of its trimmed, case-folded form.",
    tags: ["security"],
    request: { params: subjectIdParam, body: { contentType: "json", schema: securityQuestionBody, required: true } },
    responses: {
      204: { description: "Set" },
      400: { description: "wrong_values, wrong_value", schema: v3Error },
      401: badAccessToken,
      404: { description: "unknown_user", schema: v3Error },
    },
    handler: async (call) => {
      await uc.account.setQuestion(call.subject, call.body);
      return jsonResult(204, undefined);
    },
  });

const secqsnDelete = (uc: SecurityUseCases) =>
  route({
    id: "security.secqsn-delete",
    method: "DELETE",
    path: "/svc/api/v3/users/{subjectId}/secQsn",
    version: "v3",
    auth: "bearer",
    permissions: { user: ["svc_api_usec_chg"], system: ["svc_api_sys_usec_chg"] },
    subject: { param: "subjectId", kind: "subjectId" },
    userHeaders: true,
    event: { type: "secqsn_delete" },
    summary: "Remove the security question (interface §4.10)",
    tags: ["security"],
    request: { params: subjectIdParam },
    responses: { 204: { description: "Removed (also when none was set)" }, 401: badAccessToken },
    handler: async (call) => {
      await uc.account.removeQuestion(call.subject);
      return jsonResult(204, undefined);
    },
  });

const secqsnCheck = (uc: SecurityUseCases) =>
  route({
    id: "security.secqsn-check",
    method: "POST",
    path: "/svc/api/v3/users/{subjectId}/secQsn/check",
    version: "v3",
    auth: "bearer",
    permissions: { user: ["svc_api_usec"], system: ["svc_api_sys_usec"] },
    subject: { param: "subjectId", kind: "subjectId" },
    userHeaders: true,
    event: { type: "secqsn_check" },
    summary: "Check a security answer (interface §4.10)",
    description:
      "204 when question and answer match (after trimming and case folding); 400 wrong_security_answer whose desc says the question does not match, the answer does not match, or no question is set. At most 5 wrong checks per account and hour (429 too_many_attempts).",
    tags: ["security"],
    request: { params: subjectIdParam, body: { contentType: "json", schema: securityQuestionBody, required: true } },
    responses: {
      204: { description: "Correct" },
      400: { description: "wrong_security_answer, wrong_values", schema: v3Error },
      401: badAccessToken,
      429: { description: "too_many_attempts", schema: v3Error },
    },
    handler: async (call) => {
      await uc.account.checkAnswer(call.subject, call.body);
      return jsonResult(204, undefined);
    },
  });

const totpListRoute = (uc: SecurityUseCases) =>
  route({
    id: "security.totp-list",
    method: "GET",
    path: "/svc/api/v3/users/{subjectId}/totps",
    version: "v3",
    auth: "bearer",
    permissions: { user: ["svc_api_usec"], system: ["svc_api_sys_usec"] },
    subject: { param: "subjectId", kind: "subjectId" },
    summary: "List TOTP generators (interface §4.15)",
    tags: ["security"],
    request: { params: subjectIdParam },
    responses: {
      200: { description: "Configured generators: id, len, name (never the secret)", schema: totpList },
      401: badAccessToken,
    },
    handler: async (call) => jsonResult(200, await uc.totp.list(call.subject)),
  });

const totpIssue = (uc: SecurityUseCases) =>
  route({
    id: "security.totp-issue",
    method: "GET",
    path: "/svc/api/v3/users/{subjectId}/totps/attach/qr",
    version: "v3",
    auth: "bearer",
    permissions: { user: ["svc_api_usec_chg"], system: ["svc_api_sys_usec_chg"] },
    subject: { param: "subjectId", kind: "subjectId" },
    userHeaders: true,
    event: { type: "totp_issue" },
    summary: "Issue a TOTP secret and its QR code (interface §4.15)",
    description:
      "The secret is kept pending (sealed, 10 minutes) for this account only; POST attach/qr with a code from it makes it a generator.",
    tags: ["security"],
    request: { params: subjectIdParam },
    responses: {
      200: { description: "base64QRCode (PNG) and base32Secret", schema: totpIssued },
      401: badAccessToken,
      404: { description: "unknown_user", schema: v3Error },
    },
    handler: async (call) => jsonResult(200, await uc.totp.issue(call.subject, call.account)),
  });

const totpAttach = (uc: SecurityUseCases) =>
  route({
    id: "security.totp-attach",
    method: "POST",
    path: "/svc/api/v3/users/{subjectId}/totps/attach/qr",
    version: "v3",
    auth: "bearer",
    permissions: { user: ["svc_api_usec_chg"], system: ["svc_api_sys_usec_chg"] },
    subject: { param: "subjectId", kind: "subjectId" },
    userHeaders: true,
    event: { type: "totp_attach" },
    summary: "Attach a TOTP generator (interface §4.15)",
    description:
      "base32Secret must be a pending secret issued to this account by GET attach/qr; otpCode a code of the current time step (one step of drift accepted). The secret is sealed at rest and never returned again.",
    tags: ["security"],
    request: { params: subjectIdParam, body: { contentType: "json", schema: totpAttachBody, required: true } },
    responses: {
      204: { description: "Attached" },
      400: { description: "process_error wrong_otp_code; wrong_values", schema: v3Error },
      401: badAccessToken,
    },
    handler: async (call) => {
      await uc.totp.attach(call.subject, call.body);
      return jsonResult(204, undefined);
    },
  });

const totpDelete = (uc: SecurityUseCases) =>
  route({
    id: "security.totp-delete",
    method: "DELETE",
    path: "/svc/api/v3/users/{subjectId}/totps/{id}",
    version: "v3",
    auth: "bearer",
    permissions: { user: ["svc_api_usec_chg"], system: ["svc_api_sys_usec_chg"] },
    subject: { param: "subjectId", kind: "subjectId" },
    userHeaders: true,
    event: { type: "totp_delete" },
    summary: "Remove a TOTP generator (interface §4.15)",
    tags: ["security"],
    request: { params: totpParams },
    responses: {
      204: { description: "Removed" },
      401: badAccessToken,
      404: { description: "unknown_totp", schema: v3Error },
    },
    handler: async (call) => {
      await uc.totp.detach(call.subject, call.params.id);
      return jsonResult(204, undefined);
    },
  });

const qrRead = (uc: SecurityUseCases) =>
  route({
    id: "security.qr-read",
    method: "GET",
    path: "/svc/api/v3/auth/qr/{qrCode}",
    version: "v3",
    auth: "bearer",
    permissions: { user: ["svc_qr_auth"] },
    summary: "See who asks for a QR-code login: client, scopes, address, browser, expiry",
    tags: ["security"],
    request: { params: qrCodeParam },
    responses: {
      200: { description: "The pending login", schema: qrLoginView },
      401: { description: "bad_access_token", schema: v3Error },
      404: { description: "unknown_qr_code: unknown, decided or expired", schema: v3Error },
    },
    handler: async (call) => jsonResult(200, await uc.qrLogins.read(call.params.qrCode)),
  });

const qrConfirm = (uc: SecurityUseCases) =>
  route({
    id: "security.qr-confirm",
    method: "POST",
    path: "/svc/api/v3/auth/qr/{qrCode}/confirm",
    version: "v3",
    auth: "bearer",
    permissions: { user: ["svc_qr_auth"] },
    userHeaders: true,
    event: { type: "qr_login_confirm" },
    summary: "Confirm a QR-code login as the signed-in user",
    tags: ["security"],
    request: { params: qrCodeParam },
    responses: {
      204: { description: "Confirmed: the starting client gets the tokens" },
      401: { description: "bad_access_token", schema: v3Error },
      404: { description: "unknown_qr_code: unknown, already decided or expired", schema: v3Error },
    },
    handler: qrDecision(uc, "confirmed"),
  });

const qrRefuse = (uc: SecurityUseCases) =>
  route({
    id: "security.qr-refuse",
    method: "POST",
    path: "/svc/api/v3/auth/qr/{qrCode}/refuse",
    version: "v3",
    auth: "bearer",
    permissions: { user: ["svc_qr_auth"] },
    userHeaders: true,
    event: { type: "qr_login_refuse" },
    summary: "Refuse a QR-code login",
    tags: ["security"],
    request: { params: qrCodeParam },
    responses: {
      204: { description: "Refused" },
      401: { description: "bad_access_token", schema: v3Error },
      404: { description: "unknown_qr_code: unknown, already decided or expired", schema: v3Error },
    },
    handler: qrDecision(uc, "refused"),
  });

export const securityRoutes = (uc: SecurityUseCases) =>
  group("security", [
    authGet(uc),
    authChange(uc),
    stateGet(uc),
    stateChange(uc),
    secqsnGet(uc),
    secqsnSet(uc),
    secqsnDelete(uc),
    secqsnCheck(uc),
    totpListRoute(uc),
    totpIssue(uc),
    totpAttach(uc),
    totpDelete(uc),
    ...recoveryCodeRoutes(uc),
    qrRead(uc),
    qrConfirm(uc),
    qrRefuse(uc),
    ...passkeyRoutes(uc),
  ]);
