import type { MiddlewareObj } from "@middy/core";
import type { APIGatewayProxyEventV2 } from "aws-lambda";
import { services } from "../../container";
import { problems } from "../../domain/errors";
import type { SvcContext } from "../request-state";
import { sourceIpOf } from "../source-ip";

/**
 * A user token is only as alive as its session: ended sessions (reset, password change,
 * device removal, refresh-token reuse) and locked accounts refuse it at once, not at its
 * expiry. One BatchGetItem reads the session and the account together, with the keys of
 * the route's `sessionRead` plan, so the route's first read costs no round trip of its own.
 */
export function sessionLiveness(): MiddlewareObj<APIGatewayProxyEventV2, unknown, Error, SvcContext> {
  return {
    before: async (request) => {
      const state = request.context.svc;
      const principal = state.principal;
      if (principal?.mode !== "user" || principal.via !== "bearer") return;
      const plan = state.route?.sessionRead?.({
        sub: principal.sub,
        params: state.params,
        sourceIp: sourceIpOf(request.event),
        now: Math.floor(Date.now() / 1000),
      });
      const { session, account, along } = await services().sessions.sessionAndAccount(
        principal.sub,
        principal.sid,
        plan,
      );
      if (!session || session.expiresAt <= Date.now() / 1000 || !account)
        throw problems.badAccessToken("session_ended");
      if (account.locked || account.state?.name === "inactivityLock") throw problems.badAccessToken("account_locked");
      state.account = account;
      state.sessionRead = along;
    },
  };
}
