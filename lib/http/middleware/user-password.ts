import type { MiddlewareObj } from "@middy/core";
import type { APIGatewayProxyEventV2 } from "aws-lambda";
import { services } from "../../container";
import { parseUserBasic } from "../../domain/clients/basic-credentials";
import { problems } from "../../domain/errors";
import { hashGate } from "../../domain/login/hash-gate";
import { verifyUserPassword, waitOf } from "../../domain/login/verify-user-password";
import { USER_PERMISSIONS } from "../../domain/permissions";
import { log } from "../../log";
import type { SvcContext } from "../request-state";
import { connectionIpOf } from "../source-ip";

// Nobody vouches for these callers: one of their hashes at a time per process, so
// a flood of them leaves the other hashing threads to logins an application relays.
const strangers = hashGate(1);

/**
 * Calls on the `current` user also accept the user's own login and password by HTTP
 * Basic: the user, on their own account. A password guess like a login, so the same
 * brute-force counters and waits apply.
 */
export function userPassword(): MiddlewareObj<APIGatewayProxyEventV2, unknown, Error, SvcContext> {
  return {
    before: async (request) => {
      const state = request.context.svc;
      const header = request.event.headers?.authorization ?? "";
      if (state.route?.auth !== "user-bearer-or-user-basic" || !/^Basic\s/i.test(header)) return;
      const credentials = parseUserBasic(header);
      if (!credentials) throw problems.invalidCredential("malformed_basic_credentials");
      // Anonymous: the connection's address only, never one the caller claims to forward.
      const ip = connectionIpOf(request.event) || "unknown";
      const now = Math.floor(Date.now() / 1000);
      const logins = services().logins;
      const verdict = await verifyUserPassword(logins, credentials.login, credentials.password, [ip], now, strangers);
      if (!verdict.ok) {
        const busy = verdict.why === "refused" && verdict.busy;
        log.info("user password refused", { why: busy ? "busy" : verdict.why });
        if (verdict.why === "wrong") throw problems.invalidCredential("wrong login or password");
        throw busy ? problems.tooManyAttempts(verdict.message) : problems.invalidCredential(verdict.message);
      }
      const { account, attempt } = verdict;
      // HTTP Basic carries no second factor and no new password: such accounts sign in with a token.
      const refusal =
        account.locked || account.state?.name === "inactivityLock" || account.methodsLocked?.includes("password")
          ? "password login is not allowed for this account"
          : account.requiredFactor === 2
            ? "a second factor is required: HTTP Basic cannot carry it; use a user access token"
            : account.needPasswordChange
              ? "a password change is required: HTTP Basic cannot carry it; use a user access token"
              : undefined;
      if (refusal) {
        await logins.giveBack(attempt, false);
        await logins.settleFailure(attempt, waitOf(attempt, now));
        throw problems.invalidCredential(refusal);
      }
      await logins.giveBack(attempt, true);
      state.principal = { mode: "user", sub: account.sub, scopes: new Set(USER_PERMISSIONS), via: "user-basic" };
    },
  };
}
