import type { ClientRecord } from "../clients/client";
import { OAuthError, signInHookFailed } from "../errors";
import { THROTTLED } from "../login/brute-force";
import { askPreSignIn } from "../login/pre-sign-in";
import { takeAccountAttempt, waitOf } from "../login/verify-user-password";
import { BROWSER_SESSION_TTL_SECONDS, HOSTED_CLIENT } from "../oidc/browser-session";
import { mustUseOrgSso, ORG_SSO_REQUIRED } from "../organizations/sso-enforcement";
import type { PolicyViolation } from "../passwords/policy";
import { type LoginDeps, type LoginOrigin, type NewCredential, recordLogin } from "./login-commit";
import type { Proved, SignInContext } from "./method";
import { changedCredential, rehashItems } from "./password-change";
import { countSignIn, recordRefusedSignIn } from "./refusals";
import { type StepAnswers, secondFactorStep } from "./second-step";

export type { StepAnswers } from "./second-step";

import { signInWithTokens, type UserTokenResponse } from "./user-tokens";

/**
 * The sign-in flow (docs/sign-in.md): every step after a method proved who the user is,
 * the same for the hosted pages and the password grant. Locks, the preSignIn hook, the
 * second factor, a forced password change, then the login commit. Each step answers an
 * outcome; nothing here knows pages, cookies or HTTP.
 */

/** How long a paused sign-in waits for its next step (a code, a new password). */
export const PAUSED_TTL_SECONDS = 10 * 60;

/**
 * A sign-in between two pages: what was proved and when. The hosted pages keep it in the
 * sealed interaction, bound to the browser's CSRF cookie (lib/http/browser.ts).
 */
export interface PausedSignIn {
  sub: string;
  method: string;
  amr: string[];
  /** The second factor's method, once one was proved. */
  factor?: string;
  /** When the first proof was made: the pause ends PAUSED_TTL_SECONDS later, however many steps follow. */
  at: number;
  /** The current password's text, only for a forced change whose policy counts new characters (minNewChars). */
  password?: string;
}

export type NextStep = "second-factor" | "change";

export type FlowOutcome =
  | { kind: "done"; proved: Proved; newCredential?: NewCredential }
  /** The sign-in waits for another step: `why` names what is missing or was wrong. */
  | {
      kind: "ask";
      step: NextStep;
      why: string;
      message: string;
      paused: PausedSignIn;
      violations?: readonly PolicyViolation[];
    }
  | { kind: "refuse"; why: string; message: string }
  /** A paused sign-in past its time, or whose account is gone. */
  | { kind: "expired" };

/** The account asks two factors, or the application does of everyone; a method that proved two (a passkey) is enough. */
const needsSecondFactor = (proved: Proved, context: SignInContext) =>
  (proved.account.requiredFactor === 2 || (context.secondFactorRequired ?? false)) && !proved.amr.includes("mfa");

const filled = (value: unknown): string | undefined => (typeof value === "string" && value !== "" ? value : undefined);

export function signInFlow(deps: LoginDeps) {
  const signInOf = (proved: Proved, context: SignInContext) => ({
    clientId: context.clientId,
    method: proved.method,
    ip: context.ip,
    userAgent: context.userAgent,
  });

  /**
   * Past the proof a refusal may say why: the caller proved who they are. A password's hour
   * and address counts go back; its consecutive one stays, so a caller who knows the
   * password cannot clear the wait its wrong codes earned.
   */
  async function settle(proved: Proved, context: SignInContext, why: string, record = true): Promise<void> {
    if (proved.attempt) {
      await deps.logins.giveBack(proved.attempt, false);
      await deps.logins.settleFailure(proved.attempt, waitOf(proved.attempt, context.now));
    }
    if (record) await recordRefusedSignIn(deps, proved.account.sub, signInOf(proved, context), context.now, why);
  }

  async function refuse(proved: Proved, context: SignInContext, why: string, message: string): Promise<FlowOutcome> {
    await settle(proved, context, why);
    return { kind: "refuse", why, message };
  }

  /** Locks, a factor the method cannot give, and (once per sign-in) the preSignIn hook. */
  async function checks(proved: Proved, context: SignInContext, resumed: boolean): Promise<FlowOutcome | undefined> {
    const { account } = proved;
    if (account.locked) return refuse(proved, context, "account_locked", "the account is locked");
    if (account.state?.name === "inactivityLock")
      return refuse(proved, context, "inactivity_lock", "the account is locked for inactivity");
    if (account.methodsLocked?.includes(proved.method))
      return refuse(proved, context, "method_locked", `${proved.method} login is locked for this account`);
    if (needsSecondFactor(proved, context) && proved.secondFactor === "refuse")
      return refuse(proved, context, "refused", "the account requires a second factor");
    if (resumed) return undefined;
    // Any other way in would outlast the organization's say over its people (a deprovisioned member keeps a password).
    if (proved.method !== "org_sso" && (await mustUseOrgSso(deps.ssoEnforcement, account, context.ssoCheckedAddress)))
      return refuse(proved, context, ORG_SSO_REQUIRED.why, ORG_SSO_REQUIRED.message);
    // Every way in asks it, once proved, so a block the hook decides holds for all.
    const decision = await askPreSignIn(deps.hooks, { ...signInOf(proved, context), sub: account.sub });
    if (!decision.allowed && decision.why === "failed")
      return refuse(proved, context, "hook_failed", "a sign-in check could not be completed");
    if (!decision.allowed)
      return refuse(proved, context, "sign_in_refused", decision.message ?? "the sign-in was refused");
    return undefined;
  }

  /** The pause a further step waits in; a proved password's rehash is written now, since its text is not kept. */
  async function pause(proved: Proved, context: SignInContext, at: number | undefined): Promise<PausedSignIn> {
    const text = proved.password?.text;
    if (text && at === undefined) {
      const rehash = await rehashItems(proved.account, text, proved.password?.snapshot ?? {}, deps);
      if (rehash.length > 0) await deps.logins.commit(rehash);
    }
    const keepText = proved.account.needPasswordChange && deps.settings.passwordPolicy.minNewChars > 0;
    return {
      sub: proved.account.sub,
      method: proved.method,
      amr: proved.amr,
      ...(proved.factor && { factor: proved.factor }),
      at: at ?? context.now,
      ...(keepText && text && { password: text }),
    };
  }

  /** A forced change (password sign-ins only): the new password under the policy. */
  async function change(
    proved: Proved,
    answers: StepAnswers,
    context: SignInContext,
    at: number | undefined,
  ): Promise<FlowOutcome | NewCredential> {
    const ask = async (why: string, message: string, violations?: readonly PolicyViolation[]): Promise<FlowOutcome> => {
      const paused = await pause(proved, context, at);
      return { kind: "ask", step: "change", why, message, paused, ...(violations && { violations }) };
    };
    const next = filled(answers.newPassword);
    if (!next) {
      await settle(proved, context, "password_change_required");
      return ask("password_change_required", "a password change is required: send new_password");
    }
    const password = proved.password as NonNullable<Proved["password"]>;
    try {
      return await changedCredential(proved.account, password.text, next, password.snapshot, deps);
    } catch (error) {
      await settle(proved, context, "password_policy", false);
      if (error instanceof OAuthError && error.reason === "password_policy")
        return ask("password_policy", error.description, error.violations);
      throw error;
    }
  }

  /** The steps after the proof; `at` is the first proof's time when a paused sign-in resumes. */
  async function proceed(
    first: Proved,
    answers: StepAnswers,
    context: SignInContext,
    at?: number,
  ): Promise<FlowOutcome> {
    const refused = await checks(first, context, at !== undefined);
    if (refused) return refused;
    let proved = first;
    if (needsSecondFactor(proved, context) && proved.secondFactor === "ask" && !proved.factor) {
      const step = await secondFactorStep(deps, proved, answers, context, settle);
      if (step.kind === "ask")
        return {
          kind: "ask",
          step: "second-factor",
          why: step.why,
          message: step.message,
          paused: await pause(proved, context, at),
        };
      proved = step.proved;
    }
    let newCredential: NewCredential | undefined;
    if (proved.account.needPasswordChange && proved.password) {
      const changed = await change(proved, answers, context, at);
      if ("kind" in changed) return changed;
      newCredential = changed;
    }
    const text = proved.password?.text;
    const rehash =
      text && !newCredential && proved.password
        ? await rehashItems(proved.account, text, proved.password.snapshot, deps)
        : [];
    return { kind: "done", proved: { ...proved, items: [...proved.items, ...rehash] }, newCredential };
  }

  return {
    proceed,

    /**
     * A paused sign-in's next step (the hosted pages): the account read again with its
     * counters, and one attempt taken under the password's limits, so codes typed at this
     * step are throttled like guesses; the attempt goes back with the login's commit.
     */
    async resume(paused: PausedSignIn, answers: StepAnswers, context: SignInContext): Promise<FlowOutcome> {
      if (paused.at + PAUSED_TTL_SECONDS <= context.now) return { kind: "expired" };
      const taken = await takeAccountAttempt(deps.logins, paused.sub, context.addresses ?? [context.ip], context.now);
      if (!taken.ok) {
        if (taken.why === "unknown") return { kind: "expired" };
        countSignIn(deps, paused.method, "throttled");
        return { kind: "refuse", why: "throttled", message: THROTTLED };
      }
      const proved: Proved = {
        kind: "proved",
        account: taken.account,
        method: paused.method,
        amr: paused.amr,
        secondFactor: "ask",
        items: [],
        attempt: taken.attempt,
        ...(paused.factor && { factor: paused.factor }),
        ...(paused.method === "password" && { password: { text: paused.password, snapshot: taken.snapshot } }),
      };
      return proceed(proved, answers, context, paused.at);
    },

    /** The login commit of a browser sign-in: a session of the hosted pages, its cookie secret, its device. */
    commitBrowser(done: Extract<FlowOutcome, { kind: "done" }>, origin: LoginOrigin, context: SignInContext) {
      const { proved, newCredential } = done;
      return recordLogin(
        proved.account,
        {
          sessionClientId: HOSTED_CLIENT,
          clientId: context.clientId,
          amr: proved.amr,
          refresh: false,
          ttlSeconds: BROWSER_SESSION_TTL_SECONDS,
        },
        origin,
        deps,
        context.now,
        newCredential,
        loginFlow(proved),
      );
    },

    /** The login commit of a grant, then its tokens. */
    commitTokens(
      done: Extract<FlowOutcome, { kind: "done" }>,
      client: ClientRecord,
      scopes: string[],
      origin: LoginOrigin,
      now: number,
    ): Promise<UserTokenResponse> {
      const { proved, newCredential } = done;
      return signInWithTokens(proved.account, client, scopes, origin, deps, now, newCredential, {
        ...loginFlow(proved),
        amr: proved.amr,
      });
    },
  };
}

export type SignInFlow = ReturnType<typeof signInFlow>;

function loginFlow(proved: Proved) {
  return {
    method: proved.method,
    items: proved.items,
    failuresOnRecord: proved.failuresOnRecord,
    attempt: proved.attempt,
    factor: proved.factor,
    orgId: proved.orgId,
  };
}

/** A grant has no pages: a step still missing, or a refusal, is the grant's error. */
export function outcomeError(outcome: Exclude<FlowOutcome, { kind: "done" }>): OAuthError {
  if (outcome.kind === "expired") return new OAuthError("invalid_grant", "the sign-in expired");
  if (outcome.kind === "refuse" && outcome.why === "hook_failed") return signInHookFailed();
  const violations = outcome.kind === "ask" ? outcome.violations : undefined;
  return new OAuthError("invalid_grant", outcome.message, outcome.why, violations);
}
