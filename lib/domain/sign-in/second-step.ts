import type { Account } from "../accounts/account";
import { limitEngaged } from "../login/brute-force";
import { waitOf } from "../login/verify-user-password";
import type { Language } from "../messages/ports";
import type { SecondFactorProof } from "../security/second-factor";
import { type CodeChannel, CodeNotSentError, checkSecondFactor, sendSecondFactorCode } from "../security/second-factor";
import type { LoginDeps } from "./login-commit";
import type { Proved, SignInContext } from "./method";
import { recordRefusedSignIn } from "./refusals";

/** What the user sent at this step beside the proof of the method. */
export interface StepAnswers {
  /** A TOTP or sent code (`otp`), a recovery code, or a passkey's answer. */
  proof?: { otp?: unknown; recoveryCode?: unknown; passkey?: SecondFactorProof["passkey"] };
  /** Asks for a sign-in code by e-mail or SMS instead of giving one. */
  otpChannel?: unknown;
  newPassword?: unknown;
}

const filled = (value: unknown): string | undefined => (typeof value === "string" && value !== "" ? value : undefined);

type Settle = (proved: Proved, context: SignInContext, why: string) => Promise<void>;

/**
 * The second factor of an account that requires two (lib/domain/security/second-factor.ts
 * checks each kind): a code, a recovery code or a passkey proves it; a channel asks for a
 * code by e-mail or SMS; nothing asks for one. A wrong answer is a failure like a wrong
 * password: its attempt stays taken, so the waits and caps cover codes too.
 */
export async function secondFactorStep(
  deps: LoginDeps,
  proved: Proved,
  answers: StepAnswers,
  context: SignInContext,
  settle: Settle,
): Promise<{ kind: "proved"; proved: Proved } | { kind: "ask"; why: string; message: string }> {
  const { account } = proved;
  const given = answers.proof;
  const proof = {
    otp: filled(given?.otp),
    recoveryCode: filled(given?.recoveryCode),
    passkey: given?.passkey,
  };
  if (!proof.otp && !proof.recoveryCode && !proof.passkey) {
    const channel = answers.otpChannel === "email" || answers.otpChannel === "sms" ? answers.otpChannel : undefined;
    const [message, why] = channel
      ? await sentCode(deps, account, channel, context.language, context.now)
      : ["a second factor is required: send otp or recovery_code", "otp_required"];
    await settle(proved, context, why);
    return { kind: "ask", why, message };
  }
  const event = { cId: context.clientId, ip: context.ip, ua: context.userAgent };
  const verdict = deps.secondFactor
    ? await checkSecondFactor(deps.secondFactor, account, proof, event, context.now)
    : ({ ok: false, why: "invalid" } as const);
  if (!verdict.ok) {
    if (proved.attempt) await deps.logins.settleFailure(proved.attempt, waitOf(proved.attempt, context.now));
    const signIn = { clientId: context.clientId, method: proved.method, ip: context.ip, userAgent: context.userAgent };
    const limit = proved.attempt && limitEngaged(proved.attempt.consecutive, proved.password?.snapshot.counters);
    await recordRefusedSignIn(deps, account.sub, signIn, context.now, "otp_invalid", limit);
    const what = proof.passkey ? "passkey" : proof.recoveryCode ? "recovery_code" : "otp";
    return { kind: "ask", why: "otp_invalid", message: `the ${what} is not valid` };
  }
  const amr = [...proved.amr, ...verdict.amr, "mfa"];
  return { kind: "proved", proved: { ...proved, amr, factor: verdict.method } };
}

/** Sends a sign-in code; answers the message that tells where it went, or why it did not, and its reason. */
async function sentCode(
  deps: LoginDeps,
  account: Account,
  channel: CodeChannel,
  language: Language | undefined,
  now: number,
): Promise<[string, string]> {
  if (!deps.secondFactor) return ["codes by e-mail or SMS are not available", "otp_channel_unavailable"];
  try {
    const sent = await sendSecondFactorCode(
      deps.secondFactor,
      account,
      channel,
      language ?? deps.settings.defaultLanguage,
      now,
    );
    return [`a code was sent by ${channel === "email" ? "e-mail" : "SMS"} to ${sent.to}: send it as otp`, "otp_sent"];
  } catch (error) {
    if (error instanceof CodeNotSentError) return [error.message, error.reason];
    throw error;
  }
}
