import type { AccountRepository } from "../accounts/ports";
import { type ClientRecord, GRANT, GRANT_TYPES, keepAliveDue } from "../clients/client";
import type { ClientCredentialSource } from "../clients/credential-cache";
import type { ClientRepository } from "../clients/ports";
import { OAuthError } from "../errors";
import { passwordGrant } from "../login/password-grant";
import type { QrLoginRepository } from "../login/ports";
import { QR_GRANT, qrGrant, startQrLogin } from "../login/qr-login";
import { refreshGrant } from "../login/refresh-grant";
import type { Language } from "../messages/ports";
import { authorizationCodeGrant, type CodeGrantDeps } from "../oidc/code-grant";
import type { ResourceRepository } from "../resources/ports";
import type { LoginDeps } from "../sign-in/login-commit";
import { authenticateClient, presentedClient, requireGrant } from "./client-authentication";
import { clientCredentialsGrant } from "./client-credentials";
import { deviceCodeGrant, startDeviceAuthorization } from "./device-authorization";
import { checkProof, confirmationOf, type DpopDeps, DpopError } from "./dpop";
import type { AccessTokenVerifier, DeviceAuthorizationRepository, PushedAuthorizationRepository } from "./ports";
import { pushAuthorizationRequest } from "./pushed-authorization";
import { tokenExchangeGrant } from "./token-exchange";

/** The token endpoint (interface §5.2, docs/sign-in.md): client authentication, then the grant the form names. */

export interface TokenEndpointDeps {
  clientCredentials: ClientCredentialSource;
  /** A registered client that gets tokens stays (RFC 7591 clients unused too long are removed). */
  clients: Pick<ClientRepository, "keepAlive">;
  /** What the grants sign in with. */
  login: LoginDeps;
  /** The same with the second factors (codes, messages), built only for a password grant. */
  passwordLogin: () => LoginDeps;
  codes: CodeGrantDeps["codes"];
  qrLogins: QrLoginRepository;
  accounts: Pick<AccountRepository, "get">;
  resources: Pick<ResourceRepository, "get">;
  /** The management API's resource identifier (the issuer). */
  ownResource: string;
  devices: DeviceAuthorizationRepository;
  /** The hosted page where a device's user types its code (RFC 8628 verification_uri). */
  verificationUri: string;
  /** DPoP proofs (RFC 9449), with nonces when the operator asks for them. */
  dpop: DpopDeps;
  /** The URLs a DPoP proof names (htu): this endpoint's, and the pushed requests' one. */
  tokenEndpoint: string;
  parEndpoint: string;
  /** Token exchange (RFC 8693): checks the subject and actor tokens presented. */
  accessTokenVerifier: AccessTokenVerifier;
  pushedRequests: Pick<PushedAuthorizationRepository, "create">;
}

/** Who calls, as the HTTP request tells it. */
export interface TokenCaller {
  /** The Authorization header (HTTP Basic client authentication). */
  authorization?: string;
  /** SVC-CI-UA-ID: the device the application already knows. */
  uaId?: string;
  /** The user's address as the application relays it, else the connection's. */
  sourceIp?: string;
  /** The connection's own address. */
  connectionIp?: string;
  userAgent?: string;
  language: Language;
  /** The DPoP header: a proof of the key the tokens are to be bound to (RFC 9449). */
  dpop?: string;
}

/**
 * The addresses a password guess counts against: the connection's; the relayed one too when
 * an application that proved itself (not a public client) vouches for it. An application
 * trusted to relay (trustRelayedAddress) is its users' connection: the relayed address alone
 * counts, so its back end's address is not one counter shared by all its users.
 */
export function guessAddresses(
  caller: Pick<TokenCaller, "sourceIp" | "connectionIp">,
  client: Pick<ClientRecord, "public" | "trustRelayedAddress">,
): string[] {
  const connection = caller.connectionIp ?? "unknown";
  const relayed = !client.public && caller.sourceIp && caller.sourceIp !== connection ? caller.sourceIp : undefined;
  if (!relayed) return [connection];
  return client.trustRelayedAddress ? [relayed] : [connection, relayed];
}

const bound = (login: LoginDeps, jkt: string | undefined) => (jkt ? boundTo(login, jkt) : login);

/** The same sign-in steps, with every access token bound to the proven key (RFC 9449 6.1). */
function boundTo(login: LoginDeps, jkt: string): LoginDeps {
  const { accessTokens } = login;
  return {
    ...login,
    dpopKey: jkt,
    accessTokens: {
      issue: (input) => accessTokens.issue({ ...input, extraClaims: { ...input.extraClaims, ...confirmationOf(jkt) } }),
    },
  };
}

export type TokenUseCases = ReturnType<typeof tokenUseCases>;

export function tokenUseCases(deps: TokenEndpointDeps) {
  const origin = (caller: TokenCaller) => ({
    uaId: caller.uaId,
    ip: caller.sourceIp ?? "unknown",
    userAgent: caller.userAgent ?? "unknown",
  });

  /** The password grant's form, as the sign-in flow takes it. */
  const passwordInput = (form: Readonly<Record<string, unknown>>, caller: TokenCaller, client: ClientRecord) => ({
    username: form.username,
    password: form.password,
    scope: form.scope,
    otp: form.otp,
    recoveryCode: form.recovery_code,
    otpChannel: form.otp_channel,
    language: caller.language,
    newPassword: form.new_password,
    // The user's own address and browser, as the application relays them (interface §5.1).
    ...origin(caller),
    addresses: guessAddresses(caller, client),
  });

  /** The RFC 9449 refusal, with the nonce to use when that is what is missing. */
  async function dpopRefusal(error: DpopError, now: number): Promise<OAuthError> {
    const nonce = error.code === "use_dpop_nonce" && (await deps.dpop.nonces?.current(now));
    return new OAuthError(
      error.code,
      error.message,
      undefined,
      undefined,
      undefined,
      nonce ? { "dpop-nonce": nonce } : undefined,
    );
  }

  /** The key the request's DPoP proof holds; none without a proof, unless the client must send one. */
  async function provenKey(client: ClientRecord, caller: TokenCaller, url: string): Promise<string | undefined> {
    if (caller.dpop === undefined) {
      if (client.dpopBoundAccessTokens)
        throw new OAuthError("invalid_dpop_proof", "this client's tokens are DPoP-bound: send a DPoP proof");
      return undefined;
    }
    const now = Math.floor(Date.now() / 1000);
    try {
      return (await checkProof(deps.dpop, caller.dpop, { method: "POST", url }, now)).jkt;
    } catch (error) {
      throw error instanceof DpopError ? await dpopRefusal(error, now) : error;
    }
  }

  async function grant(
    client: ClientRecord,
    form: Readonly<Record<string, unknown>>,
    caller: TokenCaller,
    login: LoginDeps,
  ) {
    switch (form.grant_type) {
      case GRANT.authorizationCode:
        return authorizationCodeGrant(client, form, { ...login, codes: deps.codes, ownResource: deps.ownResource });
      case "client_credentials": {
        const { resources, ownResource } = deps;
        const ttlSeconds = login.settings.tokens.accessTtlSeconds;
        const grantDeps = { tokens: login.accessTokens, resources, ownResource, ttlSeconds };
        return clientCredentialsGrant(grantDeps, client, form.scope, form.resource);
      }
      case "password":
        return passwordGrant(client, passwordInput(form, caller, client), bound(deps.passwordLogin(), login.dpopKey));
      case "refresh_token":
        return refreshGrant(client, form.refresh_token, login, { resource: form.resource, own: deps.ownResource });
      case GRANT.deviceCode:
        return deviceCodeGrant(client, form.device_code, { ...login, devices: deps.devices });
      case GRANT.tokenExchange: {
        const ttlSeconds = login.settings.tokens.accessTtlSeconds;
        const { resources, ownResource, accessTokenVerifier: verifier } = deps;
        const exchangeDeps = { tokens: login.accessTokens, verifier, sessions: login.sessions, resources, ownResource };
        return tokenExchangeGrant({ ...exchangeDeps, ttlSeconds, now: login.now }, client, form);
      }
      case QR_GRANT:
        return qrGrant(deps.qrLogins, client, form.qr_code, origin(caller), { ...login, accounts: deps.accounts });
      default:
        throw new OAuthError("unsupported_grant_type", "this grant_type is not supported");
    }
  }

  return {
    /**
     * Client authentication, then the grant the form names; issued tokens counted by grant. With
     * them, the nonce the client's next DPoP proof must carry, when the operator asks for nonces.
     */
    async issue(form: Readonly<Record<string, unknown>>, caller: TokenCaller) {
      if (form.grant_type === undefined) throw new OAuthError("invalid_request", "grant_type is required");
      const client = await authenticateClient(deps.clientCredentials, presentedClient(caller.authorization, form));
      if (GRANT_TYPES.includes(String(form.grant_type))) requireGrant(client, String(form.grant_type));
      const jkt = await provenKey(client, caller, deps.tokenEndpoint);
      const tokens = await grant(client, form, caller, bound(deps.login, jkt));
      const keepUntil = keepAliveDue(client, Math.floor(Date.now() / 1000));
      if (keepUntil !== undefined) await deps.clients.keepAlive(client.clientId, keepUntil);
      // Only grants the switch knows reach here, so the dimension's values stay few.
      deps.login.metrics?.count("TokensIssued", { grant: String(form.grant_type) });
      const dpopNonce = await deps.dpop.nonces?.current(Math.floor(Date.now() / 1000));
      return { tokens: jkt ? { ...tokens, token_type: "DPoP" as const } : tokens, dpopNonce };
    },

    /** A device authorization (RFC 8628), started by the device. */
    async startDevice(form: Readonly<Record<string, unknown>>, caller: TokenCaller, now: number) {
      const client = await authenticateClient(deps.clientCredentials, presentedClient(caller.authorization, form));
      return startDeviceAuthorization(deps, client, form, now);
    },

    /** A pushed authorization request (RFC 9126), sent by the client before it sends the browser. */
    async push(form: Readonly<Record<string, unknown>>, caller: TokenCaller, now: number) {
      const client = await authenticateClient(deps.clientCredentials, presentedClient(caller.authorization, form));
      // RFC 9449 10.1: a proof sent with the push binds the code as dpop_jkt would.
      const jkt = caller.dpop === undefined ? undefined : await provenKey(client, caller, deps.parEndpoint);
      if (jkt && form.dpop_jkt !== undefined && form.dpop_jkt !== jkt)
        throw new OAuthError("invalid_dpop_proof", "dpop_jkt is not the thumbprint of the proof's key");
      return pushAuthorizationRequest(deps, client, jkt ? { ...form, dpop_jkt: jkt } : form, now);
    },

    /** A QR-code login, started by the desktop application. */
    async startQr(form: Readonly<Record<string, unknown>>, caller: TokenCaller, now: number) {
      const client = await authenticateClient(deps.clientCredentials, presentedClient(caller.authorization, form));
      requireGrant(client, GRANT.qr);
      return startQrLogin(deps.qrLogins, client, form.scope, { ip: caller.sourceIp, userAgent: caller.userAgent }, now);
    },
  };
}
