import type { AuthenticationResponseJSON } from "@simplewebauthn/server";
import type { ServiceSettings } from "../../config/settings";
import type { Account } from "../accounts/account";
import type { ContactCodeCaps, ContactCodeLimits } from "../accounts/ports";
import { codeMatches, codeState, generateCode, storeCode } from "../codes/one-time-code";
import { type Courier, type Language, MessageNotSentError } from "../messages/ports";
import type { LoginCodeRepository } from "./ports";
import { type EventContext, type RecoveryCodeDeps, useRecoveryCode } from "./recovery-codes";
import { type TotpDeps, verifyTotp } from "./totp-generators";

/**
 * The second factor of a password sign-in (docs/sign-in.md), one place for every method:
 * a proof goes in, a verdict naming the method comes out. A new method is one more proof
 * field and one more branch in checkSecondFactor (and in hasSecondFactorMethod when it
 * can stand as a primary second factor).
 */

export type SecondFactorMethod = "totp" | "recovery_code" | "email_code" | "sms_code" | "passkey";
export type CodeChannel = "email" | "sms";

/** What the user presented beside the password. */
export interface SecondFactorProof {
  /** A TOTP code, or the code sent by e-mail or SMS. */
  otp?: string;
  recoveryCode?: string;
  /** A passkey's answer to the sign-in page's challenge, which is bound to `binding` (the browser's CSRF token). */
  passkey?: { response: AuthenticationResponseJSON; binding: string };
}

export type SecondFactorVerdict =
  /** `amr`: RFC 8176 values of this factor alone; the login adds "pwd" and "mfa". */
  | { ok: true; method: SecondFactorMethod; amr: string[] }
  | { ok: false; why: "missing" | "invalid"; tried?: "otp" | "recovery_code" | "passkey" };

export interface SecondFactorDeps {
  totp: TotpDeps;
  recovery: RecoveryCodeDeps;
  loginCodes: LoginCodeRepository;
  contactCodes: ContactCodeLimits;
  courier: Courier;
  settings: Pick<ServiceSettings, "codes" | "secondFactor">;
  /** Whether the account has a TOTP generator or a passkey. */
  hasAuthenticator: (sub: string) => Promise<boolean>;
  /**
   * Checks and records a passkey's answer for the account: given by the hosted pages only, so
   * the WebAuthn library stays out of the functions that have no browser to answer.
   */
  passkey?: (account: Account, proof: NonNullable<SecondFactorProof["passkey"]>) => Promise<boolean>;
}

/**
 * Sign-in codes share the contact-change counters (per account, per address, cool-down),
 * so neither flow can flood one phone or mailbox past the caps.
 */
export const LOGIN_CODE_CAPS: ContactCodeCaps = { perAccountPerHour: 5, perAddressPerHour: 5, coolDownSeconds: 60 };

const FIELD = { email: "email", sms: "phone_number" } as const;
/**
 * amr (RFC 8176): a recovery code is a single-use password (a look-up secret), so "otp";
 * "kba" would claim knowledge questions. An SMS code is "sms"; an e-mail code has no
 * value of its own and is a one-time password, "otp".
 */
const AMR: Record<SecondFactorMethod, string[]> = {
  totp: ["otp"],
  recovery_code: ["otp"],
  email_code: ["otp"],
  sms_code: ["sms"],
  // A key held by an authenticator, used with user verification (RFC 8176 "hwk", "user").
  passkey: ["hwk", "user"],
};

const ok = (method: SecondFactorMethod): SecondFactorVerdict => ({ ok: true, method, amr: AMR[method] });

/** The confirmed contact a channel sends to, when the operator switched that channel on. */
function codeContact(settings: SecondFactorDeps["settings"], account: Account, channel: CodeChannel) {
  const enabled = channel === "email" ? settings.secondFactor.emailCodes : settings.secondFactor.smsCodes;
  const contact = account[FIELD[channel]];
  return enabled && contact?.verified ? contact.value : undefined;
}

/** Channels the operator switched on, whatever the account (the sign-in page offers them). */
export function codeChannels(settings: Pick<ServiceSettings, "secondFactor">): CodeChannel[] {
  return [
    ...(settings.secondFactor.emailCodes ? (["email"] as const) : []),
    ...(settings.secondFactor.smsCodes ? (["sms"] as const) : []),
  ];
}

/**
 * Whether requiredFactor 2 may be set: a TOTP generator, a passkey, or a confirmed contact of
 * a channel the operator switched on. Recovery codes do not count: a fallback needs a primary.
 */
export async function hasSecondFactorMethod(
  deps: Pick<SecondFactorDeps, "settings" | "hasAuthenticator">,
  account: Account,
): Promise<boolean> {
  if (codeContact(deps.settings, account, "email") || codeContact(deps.settings, account, "sms")) return true;
  return deps.hasAuthenticator(account.sub);
}

/** Checks the proof: a passkey, else a recovery code, else the otp as a TOTP code, then as the code sent. */
export async function checkSecondFactor(
  deps: SecondFactorDeps,
  account: Account,
  proof: SecondFactorProof,
  context: EventContext,
  now: number,
): Promise<SecondFactorVerdict> {
  if (proof.passkey) {
    const used = deps.passkey ? await deps.passkey(account, proof.passkey) : false;
    return used ? ok("passkey") : { ok: false, why: "invalid", tried: "passkey" };
  }
  if (proof.recoveryCode) {
    const used = await useRecoveryCode(deps.recovery, account.sub, proof.recoveryCode, context, now);
    return used ? ok("recovery_code") : { ok: false, why: "invalid", tried: "recovery_code" };
  }
  if (!proof.otp) return { ok: false, why: "missing" };
  if (await verifyTotp(deps.totp, account.sub, proof.otp)) return ok("totp");
  const sent = await deps.loginCodes.get(account.sub);
  if (!sent || codeState(sent, now) !== "valid" || !codeContact(deps.settings, account, sent.channel))
    return { ok: false, why: "invalid", tried: "otp" };
  if (!codeMatches(proof.otp, sent)) {
    await deps.loginCodes.recordWrongCode(account.sub, sent.digest);
    return { ok: false, why: "invalid", tried: "otp" };
  }
  if (!(await deps.loginCodes.consume(account.sub, sent.digest, now)))
    return { ok: false, why: "invalid", tried: "otp" };
  return ok(sent.channel === "email" ? "email_code" : "sms_code");
}

/** Why no code went out; `reason` is what the sign-in refusal names. */
export class CodeNotSentError extends Error {
  constructor(
    readonly reason: "otp_channel_unavailable" | "too_many_codes" | "otp_not_sent",
    message: string,
  ) {
    super(message);
    this.name = "CodeNotSentError";
  }
}

/** Shows enough of an address for the user to recognise it, not enough to learn it. */
export function maskContact(channel: CodeChannel, value: string): string {
  if (channel === "sms") return `***${value.slice(-4)}`;
  const at = value.lastIndexOf("@");
  return `${value.slice(0, Math.min(1, at))}***${value.slice(at)}`;
}

/**
 * Sends a sign-in code to the account's confirmed e-mail or phone. The caps are taken by a
 * conditional write before the code leaves; the code is stored only once it left.
 */
export async function sendSecondFactorCode(
  deps: SecondFactorDeps,
  account: Account,
  channel: CodeChannel,
  language: Language,
  now: number,
): Promise<{ channel: CodeChannel; to: string }> {
  const to = codeContact(deps.settings, account, channel);
  if (!to) {
    const what = channel === "email" ? "e-mail" : "SMS";
    throw new CodeNotSentError("otp_channel_unavailable", `codes by ${what} are not available for this account`);
  }
  if (!(await deps.contactCodes.takeSend(account.sub, FIELD[channel], to, now, LOGIN_CODE_CAPS)))
    throw new CodeNotSentError("too_many_codes", "no more codes can be sent now; try later");
  const { codes } = deps.settings;
  const code = generateCode(codes.length);
  try {
    await deps.courier.send(channel, to, "sign-in-code", { code, minutes: Math.ceil(codes.ttlSeconds / 60) }, language);
  } catch (error) {
    if (error instanceof MessageNotSentError)
      throw new CodeNotSentError("otp_not_sent", "the code could not be sent; try again later");
    throw error;
  }
  await deps.loginCodes.put(account.sub, { channel, ...storeCode(code, codes.ttlSeconds, codes.attempts, now) });
  return { channel, to: maskContact(channel, to) };
}
