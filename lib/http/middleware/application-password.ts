import type { MiddlewareObj } from "@middy/core";
import type { APIGatewayProxyEventV2 } from "aws-lambda";
import type { CallerChecks } from "../../domain/callers/caller-checks";
import { parseBasic } from "../../domain/clients/basic-credentials";
import { problems } from "../../domain/errors";
import { ALL_PERMISSIONS } from "../../domain/permissions";
import type { SvcContext } from "../request-state";

/**
 * v1/v2 routes also accept the application's REST password by HTTP Basic: every v1/v2
 * service (interface §5.4). Compared as a SHA-256 digest: no password hash per call.
 */
export function applicationPassword(
  checks: Pick<CallerChecks, "applicationByRestPassword">,
): MiddlewareObj<APIGatewayProxyEventV2, unknown, Error, SvcContext> {
  return {
    before: async (request) => {
      const state = request.context.svc;
      const header = request.event.headers?.authorization ?? "";
      if (state.route?.auth !== "bearer-or-basic" || !/^Basic\s/i.test(header)) return;
      const credentials = parseBasic(header);
      if (!credentials) throw problems.badAccessToken("malformed_basic_credentials");
      const client = await checks.applicationByRestPassword(credentials.id, credentials.secret);
      state.principal = { mode: "system", clientId: client.clientId, scopes: new Set(ALL_PERMISSIONS), via: "basic" };
    },
  };
}
