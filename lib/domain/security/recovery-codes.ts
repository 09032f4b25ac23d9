import { createHash, randomInt } from "node:crypto";
import type { SecurityEventLog } from "../audit/ports";
import type { SecurityEvent } from "../audit/security-event";
import { problems } from "../errors";
import type { RecoveryCodeRepository } from "./ports";

/**
 * Recovery codes (interface §4.15a): a fallback second factor. Ten codes of 10 symbols of
 * Crockford's base32 (50 random bits each), shown once as xxxxx-xxxxx and stored as SHA-256:
 * random codes of that entropy need no slow hash. Typing is forgiving: case, hyphens and
 * spaces do not matter, and O, I, L read as 0, 1, 1.
 */
export const RECOVERY_CODE_COUNT = 10;
const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";
const SYMBOLS = 10;

export interface RecoveryCodeDeps {
  recoveryCodes: RecoveryCodeRepository;
  events: SecurityEventLog;
}

/** Who asked, for the security event. */
export type EventContext = Pick<SecurityEvent, "cId" | "ip" | "ua">;

function newCode(): string {
  const symbols = Array.from({ length: SYMBOLS }, () => ALPHABET[randomInt(ALPHABET.length)]).join("");
  return `${symbols.slice(0, 5)}-${symbols.slice(5)}`;
}

/** The form a code is compared in; undefined when it cannot be a code at all. */
export function normalizeRecoveryCode(typed: string): string | undefined {
  const plain = typed.toLowerCase().replace(/[\s-]/g, "").replace(/o/g, "0").replace(/[il]/g, "1");
  return plain.length === SYMBOLS && [...plain].every((c) => ALPHABET.includes(c)) ? plain : undefined;
}

export function recoveryCodeDigest(normalized: string): string {
  return createHash("sha256").update(normalized).digest("hex");
}

/** GET: how many are left and since when; never the codes. */
export async function recoveryCodeStatus(
  deps: Pick<RecoveryCodeDeps, "recoveryCodes">,
  sub: string,
): Promise<{ remaining: number; createdAt?: number }> {
  const { account, set } = await deps.recoveryCodes.status(sub);
  if (!account) throw problems.unknownUser(sub);
  return set ?? { remaining: 0 };
}

/** POST: a new set replaces the old one at once; the codes are answered this once. */
export async function generateRecoveryCodes(
  deps: RecoveryCodeDeps,
  sub: string,
  context: EventContext,
  now: number,
): Promise<{ codes: string[]; createdAt: number }> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newCode);
  const digests = codes.map((code) => recoveryCodeDigest(normalizeRecoveryCode(code) as string));
  const event = deps.events.putItem({
    sbj: sub,
    // The moment in ms like every other event: whole seconds would order it before an event of the same second.
    ts: Date.now(),
    type: "recovery_codes_generate",
    ...context,
    result: "ok",
    prms: { count: RECOVERY_CODE_COUNT },
  });
  if (!(await deps.recoveryCodes.replace(sub, digests, now, event))) throw problems.unknownUser(sub);
  return { codes, createdAt: now };
}

/** Spends one code of the account's set; false when it is not one (or was used already). */
export async function useRecoveryCode(
  deps: RecoveryCodeDeps,
  sub: string,
  typed: string,
  context: EventContext,
  now: number,
): Promise<boolean> {
  const normalized = normalizeRecoveryCode(typed);
  if (!normalized) return false;
  const event = deps.events.putItem({
    sbj: sub,
    ts: now * 1000,
    type: "recovery_code_use",
    ...context,
    result: "ok",
  });
  return deps.recoveryCodes.use(sub, recoveryCodeDigest(normalized), event);
}

export type RecoveryCodeUseCases = ReturnType<typeof recoveryCodeUseCases>;

/** What the recovery-code routes do: the status of the set, and a new set. */
export function recoveryCodeUseCases(deps: RecoveryCodeDeps) {
  return {
    status: (sub: string) => recoveryCodeStatus(deps, sub),
    generate: (sub: string, context: EventContext) =>
      generateRecoveryCodes(deps, sub, context, Math.floor(Date.now() / 1000)),
  };
}
