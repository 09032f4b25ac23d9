import type { MiddlewareObj } from "@middy/core";
import type { APIGatewayProxyEventV2 } from "aws-lambda";
import { parseBasic, parseUserBasic } from "../../domain/clients/basic-credentials";
import { secretMatches } from "../../domain/credentials/secret-digest";
import { problems } from "../../domain/errors";
import { verifyUserPassword } from "../../domain/login/verify-user-password";
import { ALL_PERMISSIONS, USER_PERMISSIONS } from "../../domain/permissions";
import { services } from "../../services";
import type { AlongSession } from "../along-session";
import { log } from "../logger";
import type { Principal } from "../principal";
import type { RequestState, SvcContext } from "../request-state";
import type { AuthKind } from "../route";
import { sourceIpOf } from "../source-ip";

/**
 * A user token is only as alive as its session: ended sessions (reset, password
 * change, device removal, refresh-token reuse) and locked accounts refuse it at once,
 * not at its expiry. One BatchGetItem reads the session and the account together.
 */
async function liveSession(
  sub: string,
  sid: string,
  state: RequestState,
  along: AlongSession | undefined,
  sourceIp: string | undefined,
): Promise<void> {
  const plan = along?.({ sub, params: state.params, sourceIp, now: Math.floor(Date.now() / 1000) });
  const batched = plan && "keys" in plan ? plan : undefined;
  const beside = plan && "beside" in plan ? plan.beside() : undefined;
  // Handled at once, so a failure while the session is checked is not an unhandled rejection.
  beside?.catch(() => undefined);
  try {
    const read = await services().sessions.sessionAndAccount(sub, sid, batched);
    const { session, account } = read;
    if (!session || session.expiresAt <= Date.now() / 1000 || !account) throw problems.badAccessToken("session_ended");
    if (account.locked || account.state?.name === "inactivityLock") throw problems.badAccessToken("account_locked");
    state.account = account;
    if (batched) state.alongSession = read.along;
  } catch (error) {
    await beside?.catch(() => undefined);
    throw error;
  }
  if (beside) state.alongSession = await beside;
}

async function bearerPrincipal(
  token: string,
  state: RequestState,
  along: AlongSession | undefined,
  sourceIp: string | undefined,
): Promise<Principal> {
  const claims = await services().accessTokens.verify(token);
  const scopes = new Set(claims.scope.split(" ").filter(Boolean));
  if (claims.sid) {
    await liveSession(claims.sub, claims.sid, state, along, sourceIp);
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
  const client = await services().clientCredentials.getWithSecrets(credentials.id);
  if (!client || !secretMatches(credentials.secret, client.restPasswordHash)) {
    throw problems.badAccessToken("invalid_rest_password");
  }
  return { mode: "system", clientId: client.clientId, scopes: new Set(ALL_PERMISSIONS), via: "basic" };
}

/**
 * HTTP Basic with the user's own login and password: the user, on their own account.
 * A password guess like a login: the same brute-force counters and waits apply.
 */
async function userPasswordPrincipal(header: string, ip: string): Promise<Principal> {
  const credentials = parseUserBasic(header);
  if (!credentials) throw problems.invalidCredential("malformed_basic_credentials");
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
  return { mode: "user", sub: account.sub, scopes: new Set(USER_PERMISSIONS), via: "user-basic" };
}

const AUTHENTICATED: ReadonlySet<AuthKind | undefined> = new Set([
  "bearer",
  "bearer-or-basic",
  "user-bearer-or-user-basic",
]);

/**
 * Establishes who calls, by the route's auth kind (DESIGN 4). `alongSession` names, by
 * route id, reads that ride in a user token's session check.
 */
export function authentication(
  alongSession: Readonly<Record<string, AlongSession>> = {},
): MiddlewareObj<APIGatewayProxyEventV2, unknown, Error, SvcContext> {
  return {
    before: async (request) => {
      const state = request.context.svc;
      const auth = state.route?.auth;
      if (!AUTHENTICATED.has(auth)) return;
      const header = request.event.headers?.authorization;
      if (!header) throw problems.badAccessToken("missing_access_token");
      const bearer = /^Bearer\s+(\S+)\s*$/i.exec(header);
      if (bearer) {
        const along = state.route && alongSession[state.route.id];
        const principal = await bearerPrincipal(bearer[1], state, along, sourceIpOf(request.event));
        // `current` names a user: an application's own token has none.
        if (auth === "user-bearer-or-user-basic" && principal.mode !== "user") {
          throw problems.badAccessToken("user_token_required");
        }
        state.principal = principal;
        return;
      }
      if (/^Basic\s/i.test(header)) {
        if (auth === "bearer-or-basic") {
          state.principal = await restPasswordPrincipal(header);
          return;
        }
        if (auth === "user-bearer-or-user-basic") {
          state.principal = await userPasswordPrincipal(header, sourceIpOf(request.event) || "unknown");
          return;
        }
      }
      throw problems.badAccessToken("unsupported_authorization_scheme");
    },
  };
}
