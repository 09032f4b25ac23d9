import type { AuthenticationResponseJSON } from "@simplewebauthn/server";
import type { Account } from "../accounts/account";
import type { AccountRepository } from "../accounts/ports";
import { digestSecret } from "../credentials/secret-digest";
import { OAuthError } from "../errors";
import { type BindDeps, type ProviderAnswer, takeAnsweredState, toProvider } from "../federation/bind";
import { findProvider, splitFp } from "../federation/providers";
import type { BindState } from "../federation/records";
import type { QrLoginRepository } from "../login/ports";
import { createQrLogin, qrPng } from "../login/qr-login";
import type { Language } from "../messages/ports";
import { HOSTED_CLIENT } from "../oidc/browser-session";
import { isConsoleClient } from "../operators/operator";
import { enforcedConnection, ORG_SSO_REQUIRED } from "../organizations/sso-enforcement";
import { ORG_SSO_TYPE } from "../organizations/sso-ports";
import {
  offersSso,
  type SsoSignInDeps,
  type SsoStart,
  startByAddress,
  startByOrganization,
} from "../organizations/sso-sign-in";
import { authenticationOptions, type PasskeyDeps, passkeySecondFactor } from "../passkeys/passkeys";
import type { PolicyViolation } from "../passwords/policy";
import type { AfterSignIn, AuthorizationUseCases, FoundRequest } from "./authorization";
import { type FlowOutcome, type PausedSignIn, type StepAnswers, signInFlow } from "./flow";
import type { LoginDeps } from "./login-commit";
import type { Proved, Refused, SignInContext } from "./method";
import { passkeyMethod } from "./methods/passkey";
import { passwordMethod } from "./methods/password";
import { federatedMethod, orgSsoMethod, qrMethod } from "./methods/vouched";
import { countSignIn } from "./refusals";

/**
 * The hosted pages' sign-in (docs/sign-in.md): a method's proof, the flow's steps, the
 * login commit, then consent or the code. Each use case answers a decision the routes
 * render (lib/routes/hosted/answers.ts); none knows HTML, cookies or HTTP.
 */

export interface BrowserSignInDeps {
  /** A password sign-in's dependencies, second factors included. */
  login: LoginDeps;
  passkeys: PasskeyDeps;
  federation: Pick<BindDeps, "providers" | "federation" | "log" | "stateKey">;
  qrLogins: QrLoginRepository;
  accounts: Pick<AccountRepository, "get">;
  authorization: AuthorizationUseCases;
  /** Organizations' own providers: home-realm discovery, their sign-ins, their enforcement. */
  sso: SsoSignInDeps;
}

/** The browser, as the sign-in sees it. */
export interface BrowserOrigin {
  ip: string;
  /** The addresses a guess counts against: the connection's own. */
  addresses: string[];
  userAgent: string;
  /** The device cookie, so a browser that signs in again is the same device. */
  uaId?: string;
  language: Language;
  now: number;
}

/** What opens the browser session: the route turns it into the session and device cookies. */
export interface BrowserLogin {
  sub: string;
  cookieSecret: string;
  uaId: string;
}

export type SignInStep = "password" | "second-factor" | "change";

export type SignInDecision =
  /** The sign-in page at `step`; `why` says what happened (a refusal, what is missing), `paused` what to seal. */
  | {
      kind: "page";
      step: SignInStep;
      method: string;
      why: string;
      message: string;
      paused?: PausedSignIn;
      violations?: readonly PolicyViolation[];
    }
  | { kind: "signed-in"; login: BrowserLogin; next: AfterSignIn }
  | { kind: "expired" };

export type BrowserSignInUseCases = ReturnType<typeof browserSignInUseCases>;

export function browserSignInUseCases(deps: BrowserSignInDeps) {
  // Only the hosted pages can run a passkey ceremony, so only they check a passkey as second factor.
  const secondFactor = deps.login.secondFactor && {
    ...deps.login.secondFactor,
    passkey: (account: Account, proof: { response: AuthenticationResponseJSON; binding: string }) =>
      passkeySecondFactor(deps.passkeys, account.sub, proof),
  };
  const login: LoginDeps = { ...deps.login, secondFactor, ssoEnforcement: deps.sso };
  const flow = signInFlow(login);
  const methods = {
    password: passwordMethod(login),
    passkey: passkeyMethod({ ...deps.passkeys, metrics: login.metrics }),
    federated: federatedMethod({ ...deps.federation, accounts: deps.accounts, metrics: login.metrics }),
    qr: qrMethod({ qrLogins: deps.qrLogins, accounts: deps.accounts, metrics: login.metrics }),
    orgSso: orgSsoMethod({ ...deps.sso, metrics: login.metrics }),
  };

  const contextOf = (found: FoundRequest, origin: BrowserOrigin): SignInContext => ({
    clientId: found.request.clientId,
    ip: origin.ip,
    userAgent: origin.userAgent,
    addresses: origin.addresses,
    language: origin.language,
    secondFactorRequired: isConsoleClient(found.request.clientId),
    now: origin.now,
  });

  const page = (step: SignInStep, method: string, why: string, message: string): SignInDecision => ({
    kind: "page",
    step,
    method,
    why,
    message,
  });

  /** The flow's outcome as the browser's next page, or the login commit and where the browser goes next. */
  async function decide(
    found: FoundRequest,
    method: string,
    outcome: FlowOutcome,
    origin: BrowserOrigin,
  ): Promise<SignInDecision> {
    if (outcome.kind === "expired") return { kind: "expired" };
    if (outcome.kind === "refuse") return page("password", method, outcome.why, outcome.message);
    if (outcome.kind === "ask") {
      const { step, why, message, paused, violations } = outcome;
      return { kind: "page", step, method, why, message, paused, ...(violations && { violations }) };
    }
    const context = contextOf(found, origin);
    try {
      const opened = await flow.commitBrowser(
        outcome,
        { uaId: origin.uaId, ip: origin.ip, userAgent: origin.userAgent },
        context,
      );
      const account = outcome.proved.account;
      const next = await deps.authorization.signedIn(found, { session: opened.session, account }, origin.now);
      const secret = opened.cookieSecret as string;
      return { kind: "signed-in", login: { sub: account.sub, cookieSecret: secret, uaId: opened.uaId }, next };
    } catch (error) {
      // The commit refuses a passkey challenge taken meanwhile, a counter moved on, a code redeemed: a replay.
      if (!(error instanceof OAuthError) || error.code !== "invalid_grant") throw error;
      if (method !== "password") countSignIn(login, method, "replayed");
      return page("password", method, "replayed", error.description);
    }
  }

  /** A method's proof (or refusal), then every step after it. */
  async function signInWith(
    found: FoundRequest,
    method: string,
    result: Proved | Refused,
    origin: BrowserOrigin,
    context = contextOf(found, origin),
  ) {
    if (result.kind === "refused") return page("password", method, result.why, result.message);
    return decide(found, method, await flow.proceed(result, {}, context), origin);
  }

  return {
    /** The sign-in form's first step: login and password. */
    async password(found: FoundRequest, input: { username: string; password: string }, origin: BrowserOrigin) {
      // An address of a domain whose organization enforces its single sign-on signs in there only.
      if (await enforcedConnection(deps.sso, input.username)) {
        countSignIn(login, "password", ORG_SSO_REQUIRED.why);
        return page("password", "password", ORG_SSO_REQUIRED.why, ORG_SSO_REQUIRED.message);
      }
      const context = { ...contextOf(found, origin), ssoCheckedAddress: input.username };
      return signInWith(found, "password", await methods.password.authenticate(input, context), origin, context);
    },

    /** A paused sign-in's next step: the code (or a code sent), or the new password; nothing typed twice. */
    async resume(found: FoundRequest, paused: PausedSignIn, answers: StepAnswers, origin: BrowserOrigin) {
      return decide(found, paused.method, await flow.resume(paused, answers, contextOf(found, origin)), origin);
    },

    /** A passkey alone; its challenge is bound to the browser's CSRF token. */
    async passkey(
      found: FoundRequest,
      response: AuthenticationResponseJSON | undefined,
      binding: string,
      origin: BrowserOrigin,
    ) {
      const result = await methods.passkey.authenticate({ response, binding }, contextOf(found, origin));
      return signInWith(found, "passkey", result, origin);
    },

    /** The passkey request options of the sign-in page, bound to the browser's CSRF token. */
    passkeyOptions: (binding: string) => authenticationOptions(deps.passkeys, binding),

    /** A QR code the user's phone confirmed, posted by the browser that showed it (`binding`, its CSRF token); `qr_pending` while it waits. */
    async qr(found: FoundRequest, code: string, binding: string, origin: BrowserOrigin) {
      const result = await methods.qr.authenticate({ code, binding }, contextOf(found, origin));
      return signInWith(found, "qr", result, origin);
    },

    /** A QR code's image, shown again while the phone has not decided. */
    qrImage: (code: string) => qrPng(code),

    /** A new QR code of the hosted pages, for the scopes of the sign-in, bound to the browser's CSRF token. */
    startQr: (scopes: string[], binding: string, actor: { ip?: string; userAgent?: string }, now: number) =>
      createQrLogin(
        deps.qrLogins,
        { clientId: HOSTED_CLIENT, scopes, browserBinding: digestSecret(binding) },
        actor,
        now,
      ),

    /** The provider's URL for a configured provider (`<type>:<name>`), with this sign-in in its state; undefined for an unknown one. */
    async toProvider(fp: string, clientId: string, interaction: string, callback: string, expiresAt: number) {
      const { fpType, fpName } = splitFp(fp);
      const provider = findProvider(deps.federation.providers, fpType, fpName);
      if (!provider) return { fpName, url: undefined };
      const started = { sub: "", clientId, callback: "", redirectUri: callback, interaction };
      return { fpName, url: await toProvider(deps.federation, provider, started, expiresAt) };
    },

    /** The state a provider's answer names, taken once; undefined when forged, used or expired. */
    takeProviderState: (answer: ProviderAnswer, now: number) => takeAnsweredState(deps.federation, answer, now),

    /** The provider's answer to this browser's state: the linked account signs in (an organization's provider: just in time). */
    async federated(found: FoundRequest, state: BindState, answer: ProviderAnswer, origin: BrowserOrigin) {
      const method = state.fpType === ORG_SSO_TYPE ? methods.orgSso : methods.federated;
      const result = await method.authenticate({ state, answer }, contextOf(found, origin));
      return signInWith(found, method.name, result, origin);
    },

    /** Home-realm discovery: the organization's provider when the address must sign in there; undefined otherwise. */
    toOrgSsoByAddress: (address: string, start: SsoStart) => startByAddress(deps.sso, address, start),

    /** The provider of the organization an authorization request names, when it has a live one. */
    toOrgSso: (orgId: string, start: SsoStart) => startByOrganization(deps.sso, orgId, start),

    /** Whether the sign-in page offers the organization's single sign-on. */
    offersOrgSso: (orgId: string) => offersSso(deps.sso, orgId),

    /** A registration just finished: the new account signs in (amr pwd, no further step). */
    async registered(found: FoundRequest, sub: string, origin: BrowserOrigin) {
      const account = await deps.accounts.get(sub);
      if (!account) throw new Error("a registered account could not be read back");
      const proved: Proved = {
        kind: "proved",
        account,
        method: "registration",
        amr: ["pwd"],
        secondFactor: "done",
        items: [],
        failuresOnRecord: false,
      };
      return decide(found, "registration", { kind: "done", proved }, origin);
    },
  };
}
