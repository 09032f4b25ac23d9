import { ACCOUNT_CONSOLE_CLIENT } from "../domain/account-console/console-client";
import type { PolicyViolation } from "../domain/passwords/policy";
import type { Brand } from "./brand";
import { type Html, html } from "./html";
import {
  alert,
  type FormState,
  flowLink,
  hidden,
  layout,
  notice,
  PASSKEY_SCRIPT,
  passkeyForm,
  violationList,
} from "./parts";
import { type Language, TEXT, type Texts } from "./text";

/**
 * Which step of the sign-in the form is: the login and password; the second factor alone
 * (the password was proved and the sign-in waits in the sealed interaction); the new
 * password alone (a forced change).
 */
export type SignInStep = "password" | "second-factor" | "change";

export interface SignInView {
  lang: Language;
  state: FormState;
  clientName: string;
  step: SignInStep;
  /** login_hint, or the login typed before: filled in, still editable. */
  loginHint?: string;
  message?: keyof Texts & string;
  violations?: readonly PolicyViolation[];
  /** Shown as a status, above the form: the password was just reset. */
  notice?: string;
  /** An error already in words (a provider's sign-in that failed). */
  problem?: string;
  /** External providers to sign in with (`<type>:<name>`, and the name shown). */
  providers?: ReadonlyArray<{ fp: string; name: string }>;
  /** WebAuthn request options (JSON) when passkeys are offered. */
  passkeyOptions?: string;
  /** Channels a sign-in code can be sent by, offered on the code step. */
  codeChannels?: ReadonlyArray<"email" | "sms">;
  /** The client's brand when it has one of its own; unset, the operator's. */
  brand?: Brand;
  /** The organization the request names signs in with its own provider: offered first. */
  orgSso?: boolean;
}

/**
 * Home-realm discovery (docs/organizations.md): a work address whose organization enforces
 * its single sign-on goes to that organization's provider. Behind a toggle, so the password
 * form stays the page's first form; no script.
 */
function orgSsoForm(t: Texts, view: SignInView): Html {
  if (view.step !== "password") return html``;
  const offered = view.orgSso ? html`<p>${flowLink("/svc/oauth/sso/org", view.state, t.orgSsoWith)}</p>` : html``;
  return html`${offered}<details class="org-sso"><summary>${t.orgSsoTitle}</summary>
<form method="post" action="/svc/oauth/sso">
${hidden(view.state)}
<label for="sso_email">${t.orgSsoEmail}</label>
<input id="sso_email" name="email" type="email" autocomplete="email" autocapitalize="none" spellcheck="false" maxlength="256" required>
<button type="submit">${t.orgSsoContinue}</button>
</form>
</details>`;
}

/**
 * The code step: the code, a recovery code behind a toggle (no script), and one extra
 * submit per channel a code can be sent by, after the main one so Enter signs in.
 */
function secondFactorFields(t: Texts, channels: ReadonlyArray<"email" | "sms">): Html {
  return html`<label for="otp">${channels.length ? t.otpAny : t.otp}</label>
<input id="otp" name="otp" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6,8}">
<details><summary>${t.recoveryToggle}</summary>
<label for="recovery_code">${t.recoveryCode}</label>
<input id="recovery_code" name="recovery_code" autocomplete="one-time-code" autocapitalize="none" spellcheck="false" maxlength="32">
</details>`;
}

/**
 * A passkey as the second factor: the script runs the ceremony and submits this form with the
 * answer in `passkey`. A plain button, not a second submit.
 */
function secondFactorPasskey(t: Texts, options: string | undefined): Html {
  if (!options) return html``;
  return html`<input type="hidden" name="passkey" value="">
<p class="error" role="alert" data-passkey-error data-text="${t.passkeyMissing}" hidden></p>
<button type="button" data-passkey-second data-options="${options}">${t.usePasskey}</button>`;
}

function sendCodeButtons(t: Texts, step: SignInStep, channels: ReadonlyArray<"email" | "sms">): Html {
  if (step !== "second-factor") return html``;
  return html`${channels.map((c) => html`<button type="submit" name="otp_channel" value="${c}">${c === "email" ? t.sendCodeEmail : t.sendCodeSms}</button>`)}`;
}

/** The fields of the step: login and password, the second factor, or the new password. */
function stepFields(t: Texts, view: SignInView): Html {
  if (view.step === "second-factor")
    return html`${secondFactorFields(t, view.codeChannels ?? [])}${secondFactorPasskey(t, view.passkeyOptions)}`;
  if (view.step === "change")
    return html`<label for="new_password">${t.newPassword}</label>
<input id="new_password" name="new_password" type="password" autocomplete="new-password" required autofocus>`;
  return html`<label for="username">${t.username}</label>
<input id="username" name="username" autocomplete="${view.passkeyOptions ? "username webauthn" : "username"}" required value="${view.loginHint ?? ""}" autofocus>
<label for="password">${t.password}</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>`;
}

/**
 * One form for every step of the sign-in. Past the password the form asks only for what
 * is missing: what was proved travels in the sealed interaction (docs/sign-in.md).
 */
export function signInPage(view: SignInView): string {
  const t = TEXT[view.lang];
  const message = view.message ? (t[view.message] as string) : undefined;
  const rules = violationList(view.violations, view.lang);
  const providers = (view.providers ?? []).map(
    (p) =>
      html`<li><a href="/svc/oauth/federated?fp=${encodeURIComponent(p.fp)}&amp;interaction=${encodeURIComponent(view.state.interaction)}">${t.signInWith(p.name)}</a></li>`,
  );
  const links =
    view.step === "password"
      ? html`<ul class="links">${providers}<li>${flowLink("/svc/oauth/qr-signin", view.state, t.withPhone)}</li><li>${flowLink("/svc/oauth/register", view.state, t.createAccount)}</li><li>${flowLink("/svc/oauth/reset", view.state, t.forgotPassword)}</li></ul>`
      : html``;
  const body = html`<p class="note">${toWhat(view.clientName, t)}</p>
${notice(view.notice)}${alert(view.problem ?? message, rules)}
<form method="post" action="/svc/oauth/signin">
${hidden(view.state)}
${stepFields(t, view)}
<button type="submit">${t.submit}</button>
${sendCodeButtons(t, view.step, view.codeChannels ?? [])}
</form>
${
  view.passkeyOptions && view.step === "password"
    ? html`${passkeyForm(
        "get",
        view.passkeyOptions,
        "/svc/oauth/passkey",
        hidden(view.state),
        { label: t.withPasskey, failed: t.passkeyMissing },
        // After a refusal the autofill waits for the user instead of offering the same passkey again.
        message === undefined && view.problem === undefined,
      )}${PASSKEY_SCRIPT}`
    : view.passkeyOptions && view.step === "second-factor"
      ? PASSKEY_SCRIPT
      : html``
}
${orgSsoForm(t, view)}
${links}`;
  return layout(view.lang, t.signInTitle, body, view.brand);
}

/** What the sign-in leads to: the application, or the account console (which has no name of its own). */
function toWhat(clientName: string | undefined, t: Texts): string {
  return clientName && clientName !== ACCOUNT_CONSOLE_CLIENT ? t.signInTo(clientName) : t.signInToAccount;
}
