import type { MiddlewareObj } from "@middy/core";
import type { APIGatewayProxyEventV2 } from "aws-lambda";
import type { CallerChecks } from "../../domain/callers/caller-checks";
import { problems } from "../../domain/errors";
import { asksOperatorScope, isConsoleClient } from "../../domain/operators/operator";
import type { SvcContext } from "../request-state";

/**
 * Verifies a bearer access token (ES256, `typ: at+jwt`) and names the caller: an
 * application (system mode) or a user through an application (user mode, with a
 * session that the session-liveness step checks next).
 */
export function bearerToken(
  checks: Pick<CallerChecks, "accessToken">,
  /** The request's address as the client sees it, which a DPoP proof names (htu). */
  publicUrl: (path: string) => string,
): MiddlewareObj<APIGatewayProxyEventV2, unknown, Error, SvcContext> {
  return {
    before: async (request) => {
      const state = request.context.svc;
      const auth = state.route?.auth;
      if (auth !== "bearer" && auth !== "bearer-or-basic" && auth !== "user-bearer-or-user-basic") return;
      const headers = request.event.headers ?? {};
      const presented = /^(Bearer|DPoP)\s+(\S+)\s*$/i.exec(headers.authorization ?? "");
      if (!presented) return;
      const claims = await checks.accessToken(presented[2], {
        scheme: presented[1].toLowerCase() === "dpop" ? "dpop" : "bearer",
        proof: headers.dpop,
        method: request.event.requestContext?.http?.method ?? "",
        url: publicUrl(request.event.rawPath),
      });
      const scopes = new Set(claims.scope.split(" ").filter(Boolean));
      // The console's token names a person, but acts with the authority the operator check grants.
      if (
        claims.sid &&
        auth !== "user-bearer-or-user-basic" &&
        isConsoleClient(claims.client_id) &&
        asksOperatorScope(scopes)
      ) {
        const operator = { sub: claims.sub, sid: claims.sid, uaId: claims.ua_id };
        state.principal = { mode: "system", clientId: claims.client_id, scopes: new Set(), via: "bearer", operator };
        return;
      }
      if (claims.sid) {
        state.principal = {
          mode: "user",
          clientId: claims.client_id,
          sub: claims.sub,
          sid: claims.sid,
          uaId: claims.ua_id,
          scopes,
          via: "bearer",
        };
        return;
      }
      // `current` names a user: an application's own token has none.
      if (auth === "user-bearer-or-user-basic") throw problems.badAccessToken("user_token_required");
      state.principal = { mode: "system", clientId: claims.client_id, scopes, via: "bearer" };
    },
  };
}
