import { config } from "../../config";
import { relyingParty } from "../../config/settings";
import { browserCookieValue } from "../../domain/oidc/browser-session";
import { codeChannels } from "../../domain/security/second-factor";
import type { AfterSignIn } from "../../domain/sign-in/authorization";
import type { BrowserLogin, SignInDecision } from "../../domain/sign-in/browser-sign-in";
import { COOKIES, pageResult, readCookie, setCookie } from "../../http/browser";
import type { CommonCall, HttpResult } from "../../http/route";
import { brandOf } from "../../pages/brand";
import { consentPage } from "../../pages/consent";
import { invitationResultPage } from "../../pages/invitation";
import { organizationPage } from "../../pages/organization";
import type { FormState } from "../../pages/parts";
import { type SignInView, signInPage } from "../../pages/sign-in";
import { type Language, TEXT, type Texts } from "../../pages/text";
import {
  backToClient,
  DEVICE_COOKIE_MAX_AGE,
  errorBack,
  expiredForm,
  formState,
  languageFor,
  type OpenedForm,
} from "./answers";
import type { HostedUseCases } from "./use-cases";

/**
 * How a sign-in decision of the domain (lib/domain/sign-in/browser-sign-in.ts) becomes HTTP:
 * the sign-in page at its step with its words, or a signed-in browser's cookies and next stop.
 */

/**
 * The sign-in page, offering every configured external provider, and passkeys when the RP
 * ID is one browsers accept (the challenge is bound to the browser's CSRF token).
 */
export async function signInPageFor(
  uc: HostedUseCases,
  view: Omit<SignInView, "providers" | "passkeyOptions" | "orgSso"> & { organization?: string },
): Promise<string> {
  const providers = config().settings.federation.providers.map((p) => ({ fp: `${p.type}:${p.name}`, name: p.name }));
  const passkeyOptions =
    view.step !== "change" && relyingParty(config()).offered
      ? JSON.stringify(await uc.signIn.passkeyOptions(view.state.csrf))
      : undefined;
  // The client's own name, logo and colours when the operator gave it any (clientName is its id).
  const brand = brandOf(config().settings.branding, view.clientName);
  // A request naming an organization with its own provider offers it first.
  const orgSso = view.organization !== undefined && (await uc.signIn.offersOrgSso(view.organization));
  const channels = codeChannels(config().settings);
  return signInPage({ ...view, providers, passkeyOptions, codeChannels: channels, brand, orgSso });
}

/** The sign-in page again, with why another way of signing in did not work. */
export async function signInProblem(
  uc: HostedUseCases,
  flow: { lang: Language; state: FormState; query: Record<string, string> },
  problem: string,
  status = 200,
): Promise<HttpResult> {
  const { lang, state, query } = flow;
  return pageResult(
    status,
    await signInPageFor(uc, {
      lang,
      state,
      clientName: query.client_id,
      step: "password",
      problem,
      organization: query.organization,
    }),
  );
}

/** The session and device cookies of a browser that just signed in. */
function loginCookies(login: BrowserLogin): string[] {
  return [
    setCookie(COOKIES.session, browserCookieValue(login.sub, login.cookieSecret)),
    setCookie(COOKIES.device, login.uaId, DEVICE_COOKIE_MAX_AGE),
  ];
}

/** Where an invitation's result page leads: the account console. */
const ACCOUNT_PAGE = "/svc/account";

/** Where a signed-in browser goes: the organization picker, the consent page, or back to the client. */
export async function answerNext(
  call: CommonCall,
  query: Record<string, string>,
  next: AfterSignIn,
  cookies: string[],
): Promise<HttpResult> {
  const lang = languageFor(call, query);
  if (next.kind === "error") return errorBack(lang, next.error, cookies);
  if (next.kind === "back") return backToClient(lang, next, next.params, cookies);
  if (next.kind === "invitation") {
    const status = { joined: 200, alreadyMember: 200, wrongAccount: 403, gone: 410 }[next.acceptance.kind];
    return pageResult(status, invitationResultPage(lang, next.acceptance, ACCOUNT_PAGE), cookies);
  }
  const form = await formState(query, readCookie(call.cookies, COOKIES.csrf));
  if (next.kind === "organization")
    return pageResult(200, organizationPage({ lang, state: form.state, choices: next.choices }), [
      ...cookies,
      ...form.cookies,
    ]);
  const { name: clientName, host: clientHost } = next.asker;
  const page = consentPage({
    lang,
    state: form.state,
    clientName,
    clientHost,
    scopes: next.scopes,
    resource: next.resource,
  });
  return pageResult(200, page, [...cookies, ...form.cookies]);
}

/** How the page words a decision: an alert from the texts, a problem in words, or a notice; and the status. */
interface Words {
  status: number;
  message?: keyof Texts & string;
  problem?: string;
  notice?: string;
}

/** A refusal of the password step, by reason. */
const PASSWORD_REFUSALS: Record<string, keyof Texts & string> = {
  invalid_credential: "wrongCredentials",
  replayed: "wrongCredentials",
  throttled: "throttled",
  account_locked: "refused",
  inactivity_lock: "refused",
  method_locked: "refused",
};

/** What a further step says, by reason. */
const STEP_MESSAGES: Record<string, keyof Texts & string> = {
  otp_required: "otpRequired",
  otp_invalid: "otpInvalid",
  otp_channel_unavailable: "otpChannelUnavailable",
  too_many_codes: "tooManyCodes",
  otp_not_sent: "otpNotSent",
  password_change_required: "changeRequired",
  password_policy: "policy",
};

/** The words of another way in's refusal (passkey, provider, phone). */
function otherRefusal(why: string, t: Texts, fpName: string): string {
  const words: Record<string, string> = {
    refused: t.factorsNeeded,
    passkey_missing: t.passkeyMissing,
    unknown_passkey: t.passkeyUnknown,
    wrong_passkey: t.passkeyRefused,
    not_linked: t.notLinked(fpName),
    denied: t.providerFailed(fpName),
    provider_error: t.providerFailed(fpName),
    qr_expired: t.qrExpired,
    qr_refused: t.qrRefused,
    foreign_address: t.ssoForeignAddress,
    account_exists: t.ssoAccountExists,
    sso_unavailable: t.ssoUnavailable,
  };
  if (why === "replayed") return fpName ? t.providerFailed(fpName) : t.passkeyRefused;
  return words[why] ?? t.refused;
}

function wordsOf(decision: Extract<SignInDecision, { kind: "page" }>, lang: Language, asked: Asked): Words {
  const t = TEXT[lang];
  const { why, step, method } = decision;
  if (why === "hook_failed") return { status: 503, problem: t.hookFailed };
  if (why === "sign_in_refused") return { status: 403, problem: decision.message };
  if (step === "second-factor" && why === "otp_sent")
    return { status: 200, notice: asked.otpChannel === "sms" ? t.otpSentSms : t.otpSentEmail };
  if (step !== "password") {
    const message = why === "otp_invalid" && asked.passkey ? "passkeyRefused" : (STEP_MESSAGES[why] ?? "otpInvalid");
    return { status: 200, message };
  }
  if (why === "org_sso_required") return { status: 403, message: "useOrgSso" };
  if (method === "password") return { status: 401, message: PASSWORD_REFUSALS[why] ?? "wrongCredentials" };
  return { status: 200, problem: otherRefusal(why, t, asked.fpName ?? "") };
}

/** What the user sent that the page's words depend on. */
export interface Asked {
  /** The login typed, kept in the field after a refusal. */
  username?: string;
  otpChannel?: string;
  passkey?: boolean;
  fpName?: string;
}

/**
 * A sign-in decision as HTTP: the sign-in page at its step (the interaction sealed again
 * with the paused sign-in, or without one once the sign-in starts over), the login's
 * cookies and the way on, or the expired-form page.
 */
export async function answerDecision(
  call: CommonCall,
  uc: HostedUseCases,
  found: OpenedForm & { lang: Language },
  decision: SignInDecision,
  asked: Asked = {},
): Promise<HttpResult> {
  if (decision.kind === "expired") return expiredForm(found.lang);
  if (decision.kind === "signed-in") return answerNext(call, found.query, decision.next, loginCookies(decision.login));
  const { lang, query } = found;
  const reseal = decision.paused !== undefined || found.paused !== undefined;
  const state = reseal ? (await formState(query, found.state.csrf, decision.paused)).state : found.state;
  const words = wordsOf(decision, lang, asked);
  const page = await signInPageFor(uc, {
    lang,
    state,
    clientName: query.client_id,
    step: decision.step,
    organization: query.organization,
    loginHint: decision.step === "password" ? asked.username : undefined,
    message: words.message,
    problem: words.problem,
    notice: words.notice,
    violations: decision.violations,
  });
  return pageResult(words.status, page);
}
