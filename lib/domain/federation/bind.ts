import { createHash, randomBytes } from "node:crypto";
import type { FederationProviderConfig } from "../../config/settings";
import { signValue, verifySignedValue } from "../../crypto/signed-value";
import { AccountNotFoundError } from "../accounts/ports";
import type { ClientRepository } from "../clients/ports";
import { ApiError, oauthDescription, problems } from "../errors";
import { externalAccountOf } from "./external-account";
import { FederatedAccountTakenError, type FederationRepository } from "./ports";
import { exchangeCode, ProviderError } from "./provider-client";
import { findProvider, requireProvider } from "./providers";
import type { BindState } from "./records";
import { sealProviderTokens } from "./token-sealing";

/**
 * Binding an external account whose id is not known yet (interface §4.9): the bind call
 * sends the user to the provider with a signed, single-use, expiring `state` and PKCE
 * (RFC 7636, S256); the provider sends the browser back to our callback, which
 * exchanges the code, reads the external account, links it and returns the browser to
 * the application's `callback`.
 *
 * The link is stored only for the account's owner: the browser at the
 * callback must carry a hosted sign-in session of that account, or the owner confirms with
 * the account's password. Whoever else opens a bind link (login CSRF) links nothing.
 */

export interface BindDeps {
  providers: readonly FederationProviderConfig[];
  clients: Pick<ClientRepository, "get">;
  federation: Pick<FederationRepository, "saveState" | "takeState" | "link" | "ownerOf">;
  /** Signs states (HMAC); a subkey of the data key. */
  stateKey: () => Promise<Buffer>;
  /** Seals remembered tokens (AES-256-GCM); a subkey of the data key. */
  tokenKey: () => Promise<Buffer>;
  log: (message: string, facts: Record<string, unknown>) => void;
}

export interface BindStart {
  sub: string;
  clientId: string;
  fpType: string;
  fpName: string;
  callback: string;
  isPopup: boolean;
  /** Our callback URL, as the provider will call it. */
  redirectUri: string;
  stateTtlSeconds: number;
}

const random = (bytes: number) => randomBytes(bytes).toString("base64url");

function pkceChallenge(verifier: string): string {
  return createHash("sha256").update(verifier, "ascii").digest("base64url");
}

/** First stage: checks the provider and the callback, keeps the state, returns where the user goes. */
export async function startBind(deps: BindDeps, input: BindStart, now: number): Promise<string> {
  const provider = requireProvider(deps.providers, input.fpType, input.fpName);
  const client = await deps.clients.get(input.clientId);
  if (!client) throw problems.wrongValue("clientId", "no application has this client id");
  // Exact match only (RFC 9700 4.1.3): anything looser is an open redirector.
  if (!client.redirectUris.includes(input.callback)) {
    throw problems.wrongValue("callback", "callback is not a redirect URI registered for the application");
  }
  const url = await toProvider(
    deps,
    provider,
    { sub: input.sub, clientId: client.clientId, callback: input.callback, redirectUri: input.redirectUri },
    now + input.stateTtlSeconds,
  );
  if (input.isPopup) url.searchParams.set("display", "popup");
  return url.toString();
}

/**
 * A bind the account's owner starts from the account console, signed in in this browser
 * (docs/account.md): no application asks for it, so no client's redirect URIs are
 * consulted; `callback` is the console's own page, set by its route and never taken from
 * the request. The callback then links at once, the browser carrying the owner's session.
 */
export async function startOwnBind(
  deps: Pick<BindDeps, "providers" | "stateKey"> & { federation: Pick<FederationRepository, "saveState"> },
  input: Omit<BindStart, "isPopup">,
  now: number,
): Promise<string> {
  const provider = requireProvider(deps.providers, input.fpType, input.fpName);
  const { sub, clientId, callback, redirectUri } = input;
  const url = await toProvider(deps, provider, { sub, clientId, callback, redirectUri }, now + input.stateTtlSeconds);
  return url.toString();
}

/**
 * Keeps a new state and answers the provider's authorization URL for it: the state
 * signed, PKCE S256 and a nonce (a bind and a hosted sign-in alike).
 */
export async function toProvider(
  deps: Pick<BindDeps, "stateKey"> & { federation: Pick<FederationRepository, "saveState"> },
  provider: FederationProviderConfig,
  started: Pick<BindState, "sub" | "clientId" | "callback" | "redirectUri" | "interaction">,
  expiresAt: number,
): Promise<URL> {
  const state: BindState = {
    ...started,
    id: random(16),
    fpType: provider.type,
    fpName: provider.name,
    // 32 random bytes: 43 characters, within RFC 7636's 43 to 128.
    codeVerifier: random(32),
    nonce: random(16),
    expiresAt,
  };
  const signedState = signValue(await deps.stateKey(), state.id);
  await deps.federation.saveState(state);
  const url = new URL(provider.authorizeUrl);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("client_id", provider.clientId);
  url.searchParams.set("redirect_uri", state.redirectUri);
  url.searchParams.set("scope", provider.scope);
  url.searchParams.set("state", signedState);
  url.searchParams.set("code_challenge", pkceChallenge(state.codeVerifier));
  url.searchParams.set("code_challenge_method", "S256");
  url.searchParams.set("nonce", state.nonce);
  return url;
}

/** The provider's code exchanged as the state says (redirect URI, PKCE verifier, nonce): its tokens and the account. */
export async function redeemAnswer(provider: FederationProviderConfig, state: BindState, code: string, now: number) {
  const tokens = await exchangeCode(provider, {
    code,
    redirectUri: state.redirectUri,
    codeVerifier: state.codeVerifier,
  });
  return { tokens, account: await externalAccountOf(provider, tokens, state.nonce, now) };
}

/** The state a provider's answer names, taken once; undefined when forged, expired or used. */
export async function takeAnsweredState(
  deps: Pick<BindDeps, "federation" | "stateKey">,
  answer: ProviderAnswer,
  now: number,
): Promise<BindState | undefined> {
  const id = answer.state ? verifySignedValue(await deps.stateKey(), answer.state) : undefined;
  return id ? deps.federation.takeState(id, now) : undefined;
}

/** What the provider's redirect carries (RFC 6749 4.1.2, 4.1.2.1). */
export interface ProviderAnswer {
  state?: string;
  code?: string;
  error?: string;
}

const invalidState = (desc: string) => new ApiError(400, "input_error", "invalid_state", desc);

function backTo(callback: string, error?: string, description?: string): string {
  const url = new URL(callback);
  if (error) {
    url.searchParams.set("error", error);
    if (description) url.searchParams.set("error_description", oauthDescription(description));
  }
  return url.toString();
}

/** Where the callback leaves the browser: back at the application, or at the owner's confirmation. */
export type BindOutcome =
  | { kind: "back"; location: string }
  | { kind: "confirm"; confirmation: string; fpName: string; userName?: string };

/** How long the owner has to confirm a link the provider answered. */
const CONFIRMATION_TTL_SECONDS = 600;

/**
 * Second stage, at our callback. A state we cannot trust is a JSON error (there is no
 * trusted place to send the browser); once the state is ours, every outcome sends the
 * browser back to the application's callback, with `error` when linking failed, except a
 * link the browser cannot be shown to own: that waits for the owner's confirmation.
 * `browserSub`: the account of the browser's live hosted sign-in session, if any.
 */
export async function completeBind(
  deps: BindDeps,
  answer: ProviderAnswer,
  browserSub: string | undefined,
  now: number,
): Promise<BindOutcome> {
  const id = answer.state ? verifySignedValue(await deps.stateKey(), answer.state) : undefined;
  if (!id) throw invalidState("the state is missing or was not issued by this service");
  const state = await deps.federation.takeState(id, now);
  // A hosted sign-in's state has no account to link, and a waiting link only its owner's
  // confirmation takes: only a bind state the provider was sent comes back here.
  if (!state || state.interaction !== undefined || state.answered !== undefined)
    throw invalidState("the state has expired or was already used; start the bind again");
  const back = (error?: string, description?: string): BindOutcome => ({
    kind: "back",
    location: backTo(state.callback, error, description),
  });

  if (answer.error) {
    const code = /^[a-z_]{1,64}$/.test(answer.error) ? answer.error : "provider_error";
    return back(code, "the provider did not authorize the link");
  }
  if (!answer.code) return back("invalid_request", "the provider sent no authorization code");
  const provider = findProvider(deps.providers, state.fpType, state.fpName);
  if (!provider) return back("unknown_provider", "the provider is no longer configured");

  let answered: NonNullable<BindState["answered"]>;
  try {
    const { tokens, account } = await redeemAnswer(provider, state, answer.code, now);
    const owner = { sub: state.sub, fpType: provider.type, fpName: provider.name, sid: account.sid };
    answered = {
      sid: account.sid,
      userName: account.userName,
      tokens: provider.rememberTokens ? sealProviderTokens(await deps.tokenKey(), owner, tokens, now) : undefined,
    };
  } catch (error) {
    if (!(error instanceof ProviderError)) throw error;
    deps.log("bind failed at the provider", { fpType: provider.type, fpName: provider.name, problem: error.message });
    return back("provider_error", "the provider's answer could not be used");
  }
  if (browserSub === state.sub) return { kind: "back", location: await storeLink(deps, state, answered, now) };

  // Not shown to be the owner's browser: the link waits, under a new single-use id, for the password.
  const waiting: BindState = { ...state, id: random(16), answered, expiresAt: now + CONFIRMATION_TTL_SECONDS };
  await deps.federation.saveState(waiting);
  return {
    kind: "confirm",
    confirmation: signValue(await deps.stateKey(), waiting.id),
    fpName: provider.name,
    userName: answered.userName,
  };
}

/** Links what the provider answered to the state's account; where the browser goes next. */
async function storeLink(
  deps: BindDeps,
  state: BindState,
  answered: NonNullable<BindState["answered"]>,
  now: number,
): Promise<string> {
  try {
    await deps.federation.link({ sub: state.sub, fpType: state.fpType, fpName: state.fpName, ...answered }, now);
    deps.log("external account linked", { fpType: state.fpType, fpName: state.fpName, clientId: state.clientId });
    return backTo(state.callback);
  } catch (error) {
    if (error instanceof FederatedAccountTakenError) {
      return backTo(state.callback, "already_linked", "this external account is linked to another account");
    }
    if (error instanceof AccountNotFoundError) {
      return backTo(state.callback, "unknown_user", "the account no longer exists");
    }
    throw error;
  }
}

/**
 * The owner's confirmation of a waiting link: taken once, whatever the password; linked
 * when `ownerConfirms` says the password is the account's. Undefined when the
 * confirmation is forged, used or expired (there is no trusted place to send the browser).
 */
export async function confirmBind(
  deps: BindDeps,
  confirmation: string,
  ownerConfirms: (sub: string) => Promise<boolean>,
  now: number,
): Promise<string | undefined> {
  const id = verifySignedValue(await deps.stateKey(), confirmation);
  const state = id ? await deps.federation.takeState(id, now) : undefined;
  if (!state?.answered) return undefined;
  if (!(await ownerConfirms(state.sub))) {
    return backTo(state.callback, "access_denied", "the link was not confirmed with the account's password");
  }
  return storeLink(deps, state, state.answered, now);
}
