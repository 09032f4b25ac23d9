import type { PasswordUseCases } from "../domain/passwords/passwords";
import { jsonResult } from "../http/error-body";
import type { CommonCall } from "../http/route";
import { group, route } from "../http/route";
import { instanceIdInPath, subjectIdParam, v2Error, v3Error } from "./schemas";

/** interface §4.1 body. */
export const passwordChangeBody = {
  type: "object",
  additionalProperties: false,
  properties: {
    current: { type: "string", minLength: 1, maxLength: 1024, description: "required in user mode" },
    password: { type: "string", minLength: 1, maxLength: 1024, description: "omitted: a password is generated" },
    resetSessions: { type: "boolean", description: "default true: end every session and forget devices" },
    sendPswdToAttr: { type: "string", maxLength: 64, description: "attribute with the phone to SMS the password to" },
  },
} as const;

/** interface §4.2 body. */
export const subordinatePasswordBody = {
  type: "object",
  additionalProperties: false,
  required: ["value"],
  properties: { value: { type: "string", minLength: 1, maxLength: 1024 } },
} as const;

function eventOf(call: CommonCall & { subject?: string }) {
  const principal = call.principal;
  return {
    cId: principal?.clientId ?? "user",
    ip: call.sourceIp,
    ua: call.userAgent,
    ...(principal?.via === "bearer" && principal.mode === "user" && { sid: principal.sid }),
  } as const;
}

const changeRoute = (passwords: PasswordUseCases) =>
  route({
    id: "passwords.change",
    method: "POST",
    path: "/svc/api/v3/users/{subjectId}/pswd",
    version: "v3",
    auth: "bearer",
    permissions: { user: ["svc_api_usec_chg"], system: ["svc_api_sys_usec_chg"] },
    subject: { param: "subjectId", kind: "instanceId" },
    userHeaders: true,
    event: { type: "password_change", inTransaction: true },
    summary: "Change a password (interface §4.1); the path carries meta.instanceId",
    description:
      "User mode needs current (and X-Forwarded-For, User-Agent); wrong current is 401 invalid_credential and counts as a failed login. Without password one is generated that passes the policy. sendPswdToAttr (phone_number) sends it by SMS first: if the SMS fails nothing changes (502). resetSessions (default true) ends every session and forgets devices except the one named by SVC-CI-UA-ID; their tokens are refused at once. An e-mail notice goes to the account's address (English with Accept-Language: en).",
    tags: ["passwords"],
    request: { params: instanceIdInPath, body: { contentType: "json", schema: passwordChangeBody } },
    responses: {
      204: { description: "Changed" },
      400: { description: "password_policy_violated, wrong_values, wrong_value (sendPswdToAttr)", schema: v3Error },
      401: { description: "invalid_credential, bad_access_token", schema: v3Error },
      404: { description: "unknown_user", schema: v3Error },
      502: { description: "The SMS with the password could not be sent", schema: v3Error },
    },
    prefetch: (caller) => passwords.snapshotPrefetch(caller.sub, caller.sourceIp, caller.now),
    handler: async (call) => {
      const body = call.body ?? {};
      await passwords.change({
        sub: call.subject,
        mode: call.principal?.mode ?? "system",
        current: body.current,
        password: body.password,
        resetSessions: body.resetSessions ?? true,
        sendPswdToAttr: body.sendPswdToAttr,
        keepUaId: call.headers["svc-ci-ua-id"],
        language: call.language,
        event: eventOf(call),
        // User mode acts on the caller's own account (authorization), the one the plan read.
        snapshot: call.prefetched,
      });
      return jsonResult(204, undefined);
    },
  });

const subordinate = (passwords: PasswordUseCases) =>
  route({
    id: "passwords.subordinate",
    method: "POST",
    path: "/svc/api/v2/users/{subjectId}/password",
    version: "v2",
    auth: "bearer",
    permissions: { user: ["svc_change_password"] },
    event: { type: "subordinate_password_change", inTransaction: true },
    summary: "Set the password of a managed account (interface §4.2)",
    description:
      "A user token with svc_change_password of a lead account that holds the right change_password over subjectId (rights store). The policy applies; the managed account's sessions end. 200 {} on success; v2 access_denied (403) without the right.",
    tags: ["passwords"],
    request: { params: subjectIdParam, body: { contentType: "json", schema: subordinatePasswordBody, required: true } },
    responses: {
      200: { description: "Changed", schema: { type: "object" } },
      400: { description: "validation_error (password policy)", schema: v2Error },
      401: { description: "access_denied: bad token", schema: v2Error },
      403: { description: "access_denied: no change_password right", schema: v2Error },
      404: { description: "user_not_found", schema: v2Error },
    },
    prefetch: (caller) => passwords.subordinateSnapshotPrefetch(caller.params.subjectId, caller.sub),
    handler: async (call) => {
      await passwords.changeSubordinate({
        lead: call.principal?.mode === "user" ? call.principal.sub : undefined,
        managed: call.params.subjectId,
        password: call.body.value,
        language: call.language,
        event: eventOf(call),
        // Planned from the same caller and path: the managed account and the lead's right.
        snapshot: call.prefetched,
      });
      return jsonResult(200, {});
    },
  });

export const passwordsRoutes = (passwords: PasswordUseCases) =>
  group("passwords", [changeRoute(passwords), subordinate(passwords)]);
