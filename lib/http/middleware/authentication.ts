import type { MiddlewareObj } from "@middy/core";
import type { APIGatewayProxyEventV2 } from "aws-lambda";
import { decodeJwt, type JWTPayload } from "jose";
import { parseBasic, parseUserBasic } from "../../domain/clients/basic-credentials";
import { secretMatches } from "../../domain/credentials/secret-digest";
import { problems } from "../../domain/errors";
import { verifyUserPassword } from "../../domain/login/verify-user-password";
import { ALL_PERMISSIONS, USER_PERMISSIONS } from "../../domain/permissions";
import { services } from "../../services";
import type { AccessTokenClaims } from "../../tokens/access-token";
import type { AlongKeys, AlongSession } from "../along-session";
import { log } from "../logger";
import type { Principal } from "../principal";
import type { RequestState, SvcContext } from "../request-state";
import type { AuthKind } from "../route";
import { sourceIpOf } from "../source-ip";
import { subjectOfPath } from "./authorization";

type SessionRead = Awaited<ReturnType<ReturnType<typeof services>["sessions"]["sessionAndAccount"]>>;

/** A user token's session check under way, with the route's reads planned along it. */
interface SessionCheck {
  sub: string;
  sid: string;
  /** The session and the account, with a ReadPlan's keys when the route has one. */
  read: Promise<SessionRead>;
  batched: boolean;
  /** A route's read sent at the same moment (BesideRead). */
  beside?: Promise<unknown>;
}

/**
 * A user token is only as alive as its session: ended sessions (reset, password
 * change, device removal, refresh-token reuse) and locked accounts refuse it at once,
 * not at its expiry. One BatchGetItem reads the session and the account together.
 */
function startSessionCheck(
  sub: string,
  sid: string,
  state: RequestState,
  along: AlongSession | undefined,
  sourceIp: string | undefined,
): SessionCheck {
  const plan = along?.({ sub, params: state.params, sourceIp, now: Math.floor(Date.now() / 1000) });
  const batched = plan && "keys" in plan ? plan : undefined;
  const beside = plan && "beside" in plan ? plan.beside() : undefined;
  const read = services().sessions.sessionAndAccount(sub, sid, batched);
  // Handled at once, so a read failing while another is awaited is not an unhandled rejection.
  beside?.catch(() => undefined);
  read.catch(() => undefined);
  return { sub, sid, read, batched: batched !== undefined, beside };
}

async function liveSession(check: SessionCheck, state: RequestState): Promise<void> {
  try {
    const read = await check.read;
    const { session, account } = read;
    if (!session || session.expiresAt <= Date.now() / 1000 || !account) throw problems.badAccessToken("session_ended");
    if (account.locked || account.state?.name === "inactivityLock") throw problems.badAccessToken("account_locked");
    state.account = account;
    if (check.batched) state.alongSession = read.along;
  } catch (error) {
    await check.beside?.catch(() => undefined);
    throw error;
  }
  if (check.beside) state.alongSession = await check.beside;
}

/** Reads sent before a token was verified, beside the signing keys' read. */
interface EarlyReads {
  session?: SessionCheck;
  system?: Promise<unknown>;
}

/** Waits for reads whose results are not used, so that no read outlives the answer. */
async function drop(early: EarlyReads | undefined): Promise<void> {
  await Promise.allSettled([early?.session?.read, early?.session?.beside, early?.system]);
}

/**
 * A container that must read the signing keys (cold, then once a minute) sends the call's
 * next reads beside that read instead of after it: a user token's session check with its
 * route's plan, or a system call's first read (AlongKeys). They are planned from the
 * token's claims before its signature is checked, so their results are used only once it
 * is, and are awaited and dropped when it is not: a forged token can make the container
 * read only while the keys are being read, as the key warm-up already does.
 */
function earlyReads(
  token: string,
  state: RequestState,
  body: unknown,
  along: { session?: AlongSession; keys?: AlongKeys },
  sourceIp: string | undefined,
): EarlyReads | undefined {
  if (services().keyRing.ready()) return undefined;
  let claims: JWTPayload;
  try {
    claims = decodeJwt(token);
  } catch {
    return undefined;
  }
  // A plan that fails is no reason to refuse a call: the route then reads for itself, and a
  // forged token still gets its 401 rather than the plan's error.
  try {
    if (typeof claims.sub === "string" && typeof claims.sid === "string") {
      return { session: startSessionCheck(claims.sub, claims.sid, state, along.session, sourceIp) };
    }
    const plan =
      claims.sid === undefined &&
      along.keys?.({
        params: state.params,
        subject: state.route?.subject && subjectOfPath(state.route.subject, state.params),
        query: state.query,
        body,
        sourceIp,
        now: Math.floor(Date.now() / 1000),
      });
    if (!plan) return undefined;
    const system = plan.beside();
    system.catch(() => undefined);
    return { system };
  } catch (error) {
    log.warn("a read planned before the token check failed", { route: state.route?.id, error: (error as Error).name });
    return undefined;
  }
}

async function bearerPrincipal(
  token: string,
  state: RequestState,
  body: unknown,
  along: { session?: AlongSession; keys?: AlongKeys },
  sourceIp: string | undefined,
): Promise<Principal> {
  const early = earlyReads(token, state, body, along, sourceIp);
  let claims: AccessTokenClaims;
  try {
    claims = await services().accessTokens.verify(token);
  } catch (error) {
    await drop(early);
    throw error;
  }
  const scopes = new Set(claims.scope.split(" ").filter(Boolean));
  if (claims.sid) {
    let check = early?.session;
    // One token's claims, decoded twice: they agree. Checked all the same, since a check
    // planned from unverified claims must never stand for another session.
    if (!check || check.sub !== claims.sub || check.sid !== claims.sid) {
      await drop(early);
      check = startSessionCheck(claims.sub, claims.sid, state, along.session, sourceIp);
    }
    await liveSession(check, state);
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
  if (early?.system) {
    // A failed read leaves nothing planned: the route reads for itself.
    state.alongSession = await early.system.catch(() => undefined);
  } else await drop(early);
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
 * Establishes who calls, by the route's auth kind (DESIGN 4). By route id, `alongSession`
 * names reads that ride in a user token's session check, and `alongKeys` a system call's
 * first read, sent beside the signing keys' read when the container must make it.
 */
export function authentication(
  alongSession: Readonly<Record<string, AlongSession>> = {},
  alongKeys: Readonly<Record<string, AlongKeys>> = {},
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
        const id = state.route?.id;
        const along = { session: id ? alongSession[id] : undefined, keys: id ? alongKeys[id] : undefined };
        const body = (request.event as { body?: unknown }).body;
        const principal = await bearerPrincipal(bearer[1], state, body, along, sourceIpOf(request.event));
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
