import type { Account } from "../accounts/account";
import type { LoginSnapshot, TakenAttempt } from "../login/ports";
import type { Language } from "../messages/ports";
import type { PendingWrite } from "../unit-of-work";

/**
 * One way in (docs/adding-a-sign-in-method.md): a method proves who the user is, and the
 * sign-in flow (flow.ts) takes every step after that. Password, passkey, external provider
 * and QR are methods (methods/); the second factors (TOTP, e-mail or SMS code, recovery
 * code, passkey) are the second role, one `SecondFactor` each in lib/domain/security/second-factor.ts.
 */
export interface SignInMethod<Input> {
  /** The login event's and the preSignIn hook's `method`. */
  readonly name: string;
  /** RFC 8176 values of this proof alone. */
  readonly amr: readonly string[];
  /**
   * What an account that requires two factors needs after this proof: the second factor
   * asked next, nothing (the proof had two already), or a refusal (one factor vouched for elsewhere).
   */
  readonly secondFactor: "ask" | "done" | "refuse";
  /** Proves who the user is, or says why not; a refusal is already counted and recorded. */
  authenticate(input: Input, context: SignInContext): Promise<Proved | Refused>;
}

/** Who signs in, and where from. */
export interface SignInContext {
  /** The application the user signs in for. */
  clientId: string;
  ip: string;
  userAgent: string;
  /** The addresses a guess counts against (default: `ip`). */
  addresses?: string[];
  /** The language of a sign-in code's message. */
  language?: Language;
  /** An address whose domain the page already found free of enforced single sign-on. */
  ssoCheckedAddress?: string;
  /** The application asks a second factor of every account (the admin console). */
  secondFactorRequired?: boolean;
  now: number;
}

/** A method's proof: the account, and what the rest of the flow needs of it. */
export interface Proved {
  kind: "proved";
  account: Account;
  method: string;
  amr: string[];
  secondFactor: SignInMethod<unknown>["secondFactor"];
  /** Writes the login commit carries (a passkey's counter and challenge, a QR code redeemed). */
  items: PendingWrite[];
  /** A password guess's attempt: the commit gives it back, a refusal settles it as a failure. */
  attempt?: TakenAttempt;
  /** The password just proved (the password method only): for a forced change's policy and a rehash. */
  password?: { text?: string; snapshot: LoginSnapshot };
  /** False when the method's read found no failure record: the commit need not clear one. */
  failuresOnRecord?: boolean;
  /** The second factor's method, once one was proved. */
  factor?: string;
  /** The organization whose single sign-on proved it (method org_sso), for the login event. */
  orgId?: string;
}

/** Why a method did not prove anyone; `why` is the reason code (refusal record, page message). */
export interface Refused {
  kind: "refused";
  why: string;
  message: string;
}

export const refused = (why: string, message: string): Refused => ({ kind: "refused", why, message });
