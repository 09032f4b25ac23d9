import type { MiddlewareObj } from "@middy/core";
import type { APIGatewayProxyEventV2 } from "aws-lambda";
import { services } from "../../container";
import { parseUserBasic } from "../../domain/clients/basic-credentials";
import { problems } from "../../domain/errors";
import { verifyUserPassword } from "../../domain/login/verify-user-password";
import { USER_PERMISSIONS } from "../../domain/permissions";
import { log } from "../../log";
import type { SvcContext } from "../request-state";
import { sourceIpOf } from "../source-ip";

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
      const ip = sourceIpOf(request.event) || "unknown";
      const now = Math.floor(Date.now() / 1000);
      const verdict = await verifyUserPassword(services().logins, credentials.login, credentials.password, ip, now);
      if (!verdict.ok) {
        log.info("user password refused", { why: verdict.why });
        throw problems.invalidCredential(verdict.why === "refused" ? verdict.message : "wrong login or password");
      }
      const { account } = verdict;
      if (account.locked || account.state?.name === "inactivityLock" || account.methodsLocked?.includes("password")) {
        throw problems.invalidCredential("password login is not allowed for this account");
      }
      state.principal = { mode: "user", sub: account.sub, scopes: new Set(USER_PERMISSIONS), via: "user-basic" };
    },
  };
}
