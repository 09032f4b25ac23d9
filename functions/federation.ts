import { setTimeout as sleep } from "node:timers/promises";
import { servedRoutes } from "../lib/compiled/federation-routes";
import { config } from "../lib/config";
import { dataKeys } from "../lib/crypto/data-key";
import { problems } from "../lib/domain/errors";
import { completeBind, type ProviderAnswer, startBind } from "../lib/domain/federation/bind";
import { currentTokens } from "../lib/domain/federation/fed-tokens";
import { linkAccount, listLinks, unlinkAccount } from "../lib/domain/federation/links";
import type { FederationRepository } from "../lib/domain/federation/ports";
import { findProvider, splitFp } from "../lib/domain/federation/providers";
import { type AlongKeys, besideKeysFor, readMadeFor } from "../lib/http/along-session";
import { jsonResult, redirectResult } from "../lib/http/error-body";
import { log } from "../lib/http/logger";
import { acceptedPermissions } from "../lib/http/middleware/authorization";
import { type ApiCall, createApiFunction } from "../lib/http/pipeline";
import { services } from "../lib/services";

const now = () => Math.floor(Date.now() / 1000);
const providers = () => config().settings.federation.providers;
const facts = (message: string, fields: Record<string, unknown>) => log.info(message, fields);

function linkOf(call: ApiCall) {
  return {
    sub: call.subject as string,
    fpType: call.params.fpType,
    fpName: call.params.fpName,
    sid: call.params.sid,
  };
}

const CALLBACK_PATH = servedRoutes.find((r) => r.id === "federation.callback")?.path as string;
const HOST = /^[A-Za-z0-9.-]+(:[0-9]{1,5})?$|^\[[0-9A-Fa-f:.]+\](:[0-9]{1,5})?$/;

/** Our callback as the provider will call it: configured, else this request's own origin. */
function callbackUrl(call: ApiCall): string {
  const configured = config().settings.federation.callbackUrl;
  if (configured) return configured;
  const host = call.headers.host;
  if (!host || !HOST.test(host)) throw problems.wrongValue("host", "the Host header is missing or malformed");
  const proto = call.headers["x-forwarded-proto"]?.split(",")[0]?.trim() === "https" ? "https" : "http";
  return `${proto}://${host}${CALLBACK_PATH}`;
}

function bindDeps() {
  const { clients, federation } = services();
  return {
    providers: providers(),
    clients,
    federation,
    stateKey: () => dataKeys().key("federation-state"),
    tokenKey: () => dataKeys().key("federated-tokens"),
    log: facts,
  };
}

interface BindBody {
  fp: string;
  callback: string;
  isPopup?: boolean;
  clientId?: string;
}

/** The application the bind is made for: the user token's, or the one named with Basic. */
function bindingClientId(call: ApiCall<BindBody>): string {
  const principal = call.principal;
  const named = call.body.clientId;
  if (principal?.via === "bearer") {
    if (named !== undefined && named !== principal.clientId) {
      throw problems.wrongValue("clientId", "clientId must be the application of the access token");
    }
    return principal.clientId;
  }
  if (named === undefined)
    throw problems.wrongValues([{ error: "required", pos: "clientId", desc: "clientId is required with HTTP Basic" }]);
  return named;
}

/** The v3 path and the v2 path (SPEC 4.9) unlink alike; only the error shape differs. */
async function unlink(call: ApiCall) {
  await unlinkAccount(services().federation, linkOf(call));
  return jsonResult(204, undefined);
}

type LinksOfAccount = Awaited<ReturnType<FederationRepository["linksOfAccount"]>>;

/** A cold container reads the account's links beside the signing keys (system calls). */
const linksBesideKeys: AlongKeys = ({ subject }) =>
  subject === undefined ? undefined : besideKeysFor(subject, () => services().federation.linksOfAccount(subject));

export const handler = createApiFunction(
  "federation",
  servedRoutes,
  {
    "federation.list": async (call) => {
      const sub = call.subject as string;
      return jsonResult(
        200,
        await listLinks(
          services().federation,
          sub,
          call.account?.sub === sub,
          readMadeFor<LinksOfAccount>(call.alongSession, sub)?.value,
        ),
      );
    },

    "federation.link": async (call) => {
      const body = (call.body ?? {}) as { federatedAccountName?: string };
      await linkAccount(
        services().federation,
        providers(),
        { ...linkOf(call), userName: body.federatedAccountName },
        now(),
      );
      return jsonResult(204, undefined);
    },

    "federation.unlink": unlink,

    "federation.unlink-v2": unlink,

    "federation.bind": async (rawCall) => {
      const call = rawCall as ApiCall<BindBody>;
      const principal = call.principal;
      if (principal?.mode !== "user") throw problems.badAccessToken("user_token_required");
      const redirectTo = await startBind(
        bindDeps(),
        {
          sub: principal.sub,
          clientId: bindingClientId(call),
          ...splitFp(call.body.fp),
          callback: call.body.callback,
          isPopup: call.body.isPopup === true,
          redirectUri: callbackUrl(call),
          stateTtlSeconds: config().settings.federation.stateTtlSeconds,
        },
        now(),
      );
      return jsonResult(200, { redirectTo }, { "cache-control": "no-store" });
    },

    "federation.callback": async (call) =>
      redirectResult(await completeBind(bindDeps(), call.query as ProviderAnswer, now())),

    "federation.token": async (call) => {
      const { fedPointType, fedPointName } = call.params;
      const principal = call.principal;
      if (principal?.mode !== "system") throw problems.badAccessToken("insufficient_scope");
      const provider = findProvider(providers(), fedPointType, fedPointName);
      if (!provider) throw problems.badAccessToken("unknown_provider");
      if (!provider.rememberTokens) throw problems.badAccessToken("provider_does_not_remember_tokens");
      const { clients, federation } = services();
      const accepted = acceptedPermissions(call.route.permissions?.system ?? [], call.params);
      // Both reads at once: the tokens are only used once the grant is confirmed.
      const [client, stored, tokenKey] = await Promise.all([
        clients.get(principal.clientId),
        federation.tokens(call.subject as string, provider.type, provider.name),
        dataKeys().key("federated-tokens"),
      ]);
      // SPEC 4.9: the application itself must still hold what its token carries.
      const granted = accepted.some((p) => principal.scopes.has(p) && client?.scopes.includes(p));
      if (!granted) throw problems.badAccessToken("permission_not_granted_to_application");
      const tokens = await currentTokens(
        {
          federation,
          provider,
          tokenKey,
          minLifetimeSeconds: config().settings.fedToken.minLifetimeSeconds,
          now,
          sleep: (ms) => sleep(ms),
          log: facts,
        },
        stored,
      );
      return jsonResult(200, tokens, { "cache-control": "no-store" });
    },
  },
  { alongKeys: { "federation.list": linksBesideKeys } },
);
