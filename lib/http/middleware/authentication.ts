import type { MiddlewareObj } from "@middy/core";
import type { APIGatewayProxyEventV2 } from "aws-lambda";
import { parseBasic } from "../../domain/clients/basic-credentials";
import { secretMatches } from "../../domain/credentials/secret-digest";
import { problems } from "../../domain/errors";
import { ALL_PERMISSIONS } from "../../domain/permissions";
import { services } from "../../services";
import type { Principal } from "../principal";
import type { SvcContext } from "../request-state";

async function bearerPrincipal(token: string): Promise<Principal> {
  const claims = await services().accessTokens.verify(token);
  const scopes = new Set(claims.scope.split(" ").filter(Boolean));
  if (claims.sid) {
    return {
      mode: "user",
      clientId: claims.client_id,
      sub: claims.sub,
      sid: claims.sid,
      uaId: claims.ua_id,
      scopes,
      via: "bearer",
    };
  }
  return { mode: "system", clientId: claims.client_id, scopes, via: "bearer" };
}

/** v1/v2 HTTP Basic with the application's REST password: every v1/v2 service (SPEC 9). */
async function restPasswordPrincipal(header: string): Promise<Principal> {
  const credentials = parseBasic(header);
  if (!credentials) throw problems.badAccessToken("malformed_basic_credentials");
  const client = await services().clients.getWithSecrets(credentials.id);
  if (!client || !secretMatches(credentials.secret, client.restPasswordHash)) {
    throw problems.badAccessToken("invalid_rest_password");
  }
  return { mode: "system", clientId: client.clientId, scopes: new Set(ALL_PERMISSIONS), via: "basic" };
}

/** Establishes who calls, by the route's auth kind (DESIGN 4). */
export function authentication(): MiddlewareObj<APIGatewayProxyEventV2, unknown, Error, SvcContext> {
  return {
    before: async (request) => {
      const state = request.context.svc;
      const auth = state.route?.auth;
      if (auth !== "bearer" && auth !== "bearer-or-basic") return;
      const header = request.event.headers?.authorization;
      if (!header) throw problems.badAccessToken("missing_access_token");
      const bearer = /^Bearer\s+(\S+)\s*$/i.exec(header);
      if (bearer) {
        state.principal = await bearerPrincipal(bearer[1]);
        return;
      }
      if (auth === "bearer-or-basic" && /^Basic\s/i.test(header)) {
        state.principal = await restPasswordPrincipal(header);
        return;
      }
      throw problems.badAccessToken("unsupported_authorization_scheme");
    },
  };
}
