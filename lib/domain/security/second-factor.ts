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
 * The second factor of a password sign-in (docs/sign-in.md): one `SecondFactor` strategy per
 * kind (TOTP, a code sent by e-mail or SMS, a recovery code, a passkey), tried by
 * checkSecondFactor. A new kind is one more strategy in SECOND_FACTORS and its proof field
 * (and a branch in hasSecondFactorMethod when it can stand as a primary second factor).
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
export function codeContact(settings: SecondFactorDeps["settings"], account: Account, channel: CodeChannel) {
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

/** The proof field a second factor reads. */
export type ProofField = "passkey" | "recovery_code" | "otp";

/** One kind of second factor (the second role beside SignInMethod, lib/domain/sign-in/method.ts). */
export interface SecondFactor {
  readonly field: ProofField;
  /** The answer this kind reads from the proof, when there is one. */
  answer(proof: SecondFactorProof): unknown;
  /** The method the answer proved, or undefined when it is not right for the account. */
  check(
    deps: SecondFactorDeps,
    account: Account,
    proof: SecondFactorProof,
    context: EventContext,
    now: number,
  ): Promise<SecondFactorMethod | undefined>;
}

const passkeyFactor: SecondFactor = {
  field: "passkey",
  answer: (proof) => proof.passkey,
  check: async (deps, account, proof) =>
    proof.passkey && deps.passkey && (await deps.passkey(account, proof.passkey)) ? "passkey" : undefined,
};

const recoveryCodeFactor: SecondFactor = {
  field: "recovery_code",
  answer: (proof) => proof.recoveryCode,
  check: async (deps, account, proof, context, now) =>
    proof.recoveryCode && (await useRecoveryCode(deps.recovery, account.sub, proof.recoveryCode, context, now))
      ? "recovery_code"
      : undefined,
};

const totpFactor: SecondFactor = {
  field: "otp",
  answer: (proof) => proof.otp,
  check: async (deps, account, proof) =>
    proof.otp && (await verifyTotp(deps.totp, account.sub, proof.otp)) ? "totp" : undefined,
};

/** The code sent by e-mail or SMS: right, alive, to a contact still confirmed, and taken once. */
const sentCodeFactor: SecondFactor = {
  field: "otp",
  answer: (proof) => proof.otp,
  async check(deps, account, proof, _context, now) {
    const sent = proof.otp ? await deps.loginCodes.get(account.sub) : undefined;
    if (!proof.otp || !sent || codeState(sent, now) !== "valid" || !codeContact(deps.settings, account, sent.channel))
      return undefined;
    if (!codeMatches(proof.otp, sent)) {
      await deps.loginCodes.recordWrongCode(account.sub, sent.digest);
      return undefined;
    }
    if (!(await deps.loginCodes.consume(account.sub, sent.digest, now))) return undefined;
    return sent.channel === "email" ? "email_code" : "sms_code";
  },
};

/** In order of precedence: the first kind the proof carries decides which field is judged. */
const SECOND_FACTORS: readonly SecondFactor[] = [passkeyFactor, recoveryCodeFactor, totpFactor, sentCodeFactor];

/** Checks the proof: a passkey, else a recovery code, else the otp as a TOTP code, then as the code sent. */
export async function checkSecondFactor(
  deps: SecondFactorDeps,
  account: Account,
  proof: SecondFactorProof,
  context: EventContext,
  now: number,
): Promise<SecondFactorVerdict> {
  const field = SECOND_FACTORS.find((factor) => factor.answer(proof))?.field;
  if (!field) return { ok: false, why: "missing" };
  for (const factor of SECOND_FACTORS.filter((f) => f.field === field)) {
    const method = await factor.check(deps, account, proof, context, now);
    if (method) return ok(method);
  }
  return { ok: false, why: "invalid", tried: field };
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
