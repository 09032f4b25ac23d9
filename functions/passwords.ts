import { servedRoutes } from "../lib/compiled/passwords-routes";
import { ApiError, problems } from "../lib/domain/errors";
import { hourOf } from "../lib/domain/login/brute-force";
import type { AccountSnapshot, LoginSnapshot } from "../lib/domain/login/ports";
import { changePassword, leadLacksRight, SUBORDINATE_RIGHT } from "../lib/domain/passwords/change-password";
import { besideKeysFor, readMadeFor } from "../lib/http/along-session";
import { jsonResult } from "../lib/http/error-body";
import { type ApiCall, createApiFunction } from "../lib/http/pipeline";
import { passwordChangeDeps } from "../lib/messaging";
import { services } from "../lib/services";

function eventOf(call: ApiCall) {
  const principal = call.principal;
  return {
    cId: principal?.clientId ?? "user",
    ip: call.sourceIp,
    ua: call.userAgent,
    ...(principal?.via === "bearer" && principal.mode === "user" && { sid: principal.sid }),
  };
}

export const handler = createApiFunction(
  "passwords",
  servedRoutes,
  {
    "passwords.change": async (call) => {
      const body = (call.body ?? {}) as {
        current?: string;
        password?: string;
        resetSessions?: boolean;
        sendPswdToAttr?: string;
      };
      await changePassword(
        {
          sub: call.subject as string,
          mode: call.principal?.mode ?? "system",
          current: body.current,
          password: body.password,
          resetSessions: body.resetSessions ?? true,
          sendPswdToAttr: body.sendPswdToAttr,
          keepUaId: call.headers["svc-ci-ua-id"],
          language: call.language,
          event: eventOf(call),
          // User mode acts on the caller's own account (authorization), the one the plan read;
          // a system call's snapshot, read beside the keys, says whose it is.
          snapshot:
            call.principal?.mode === "user"
              ? (call.alongSession as LoginSnapshot | undefined)
              : readMadeFor<AccountSnapshot>(call.alongSession, call.subject)?.value,
        },
        passwordChangeDeps(),
      );
      return jsonResult(204, undefined);
    },

    "passwords.subordinate": async (call) => {
      const lead = call.principal?.mode === "user" ? call.principal.sub : undefined;
      if (!lead) throw leadLacksRight();
      const managed = call.params.subjectId;
      const { value } = call.body as { value: string };
      try {
        await changePassword(
          {
            sub: managed,
            lead,
            mode: "system",
            password: value,
            resetSessions: true,
            language: call.language,
            event: { ...eventOf(call), cId: `${call.principal?.clientId ?? "user"} via ${lead}` },
            // Planned from the same caller and path: the managed account and the lead's right.
            snapshot: call.alongSession as AccountSnapshot | undefined,
          },
          passwordChangeDeps(),
        );
      } catch (error) {
        if (error instanceof ApiError && error.error === "unknown_user") throw problems.unknownUser(managed);
        throw error;
      }
      return jsonResult(200, {});
    },
  },
  {
    // A system change's snapshot, sent beside the signing keys' read when a cold container makes it.
    alongKeys: {
      "passwords.change": ({ subject }) =>
        subject === undefined ? undefined : besideKeysFor(subject, () => services().logins.accountSnapshot(subject)),
    },
    // The snapshot rides in the session check: one BatchGetItem instead of two.
    alongSession: {
      "passwords.change": (caller) =>
        services().logins.snapshotPlan({ sub: caller.sub }, caller.sourceIp, hourOf(caller.now)),
      "passwords.subordinate": (caller) =>
        services().logins.accountSnapshotPlan(caller.params.subjectId, { lead: caller.sub, right: SUBORDINATE_RIGHT }),
    },
  },
);
