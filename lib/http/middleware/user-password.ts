import type { MiddlewareObj } from "@middy/core";
import type { APIGatewayProxyEventV2 } from "aws-lambda";
import type { CallerChecks } from "../../domain/callers/caller-checks";
import { parseUserBasic } from "../../domain/clients/basic-credentials";
import { problems } from "../../domain/errors";
import { USER_PERMISSIONS } from "../../domain/permissions";
import type { SvcContext } from "../request-state";
import { connectionIpOf } from "../source-ip";

/**
 * Calls on the `current` user also accept the user's own login and password by HTTP
 * Basic: the user, on their own account (CallerChecks.userByPassword).
 */
export function userPassword(
  checks: Pick<CallerChecks, "userByPassword">,
): MiddlewareObj<APIGatewayProxyEventV2, unknown, Error, SvcContext> {
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
      const account = await checks.userByPassword(credentials.login, credentials.password, ip, now);
      state.principal = { mode: "user", sub: account.sub, scopes: new Set(USER_PERMISSIONS), via: "user-basic" };
    },
  };
}
