import type { ServiceSettings } from "../../config";
import { type PasswordHash, verifyPassword } from "../credentials/password-hash";
import { COMMON_PASSWORDS } from "./common-passwords";

/**
 * The password policy engine (SPEC 7.2 rules, configured as DESIGN 7). Defaults follow
 * NIST 800-63B: a minimum length and a common-password check, no composition rules.
 */

export type PasswordPolicy = ServiceSettings["passwordPolicy"];

export type PolicyViolation =
  | { rule: "to_short"; low: number }
  | { rule: "to_long"; high: number }
  | { rule: "not_enough_groups"; no_matched_groups: Array<{ desc: string; min_number_symbols: number }> }
  | { rule: "in_password_history" }
  | { rule: "eq_current" }
  | { rule: "not_enough_new_chars"; minNew: number }
  | { rule: "in_stop_dic"; stop_word: string }
  | { rule: "in_password_dic" }
  | { rule: "too_young"; minAgeInSec: number }
  | { rule: "id_store" };

/** What the engine may know besides the new password; each rule needs only some of it. */
export interface PasswordContext {
  /** Identifiers of the account: a password must not contain them. */
  identity?: { sub?: string; email?: string; phone?: string };
  /** The current password in clear, when the user typed it (user-mode change). */
  currentPassword?: string;
  /** The stored hash of the current password. */
  currentHash?: PasswordHash;
  /** Earlier hashes, newest first. */
  history?: PasswordHash[];
  /** Unix time of the last change. */
  changedAt?: number;
  now?: number;
}

/** The list with a line break at both ends, so every entry reads `\n<entry>\n`. */
let commonLines: string | undefined;

/**
 * One substring search of the list. A Set of its 10,000 entries cost a cold start ~2 ms
 * to build, for the one or two passwords a container checks before it is frozen. (Built
 * on first use, so bundles that never check a password leave the list out.)
 */
function isCommon(password: string): boolean {
  const lower = password.toLowerCase();
  // A line break inside the password would let it span two entries.
  if (lower.length === 0 || lower.includes("\n")) return false;
  commonLines ??= `\n${COMMON_PASSWORDS}\n`;
  return commonLines.includes(`\n${lower}\n`);
}

/** Codepoints, so a password of emoji or Cyrillic is measured as a person counts it. */
function characters(password: string): string[] {
  return [...password.normalize("NFKC")];
}

/** An identifier too short to be meaningful inside a password is not checked. */
const MIN_IDENTIFIER = 4;

function containsIdentifier(password: string, identity: PasswordContext["identity"]): boolean {
  const lower = password.toLowerCase();
  const candidates = [identity?.sub, identity?.email?.split("@")[0], identity?.phone].filter(
    (v): v is string => typeof v === "string" && v.length >= MIN_IDENTIFIER,
  );
  return candidates.some((value) => lower.includes(value.toLowerCase()));
}

/** Every rule the password breaks, in the order SPEC 7.2 lists them. */
export async function checkPassword(
  password: string,
  policy: PasswordPolicy,
  context: PasswordContext = {},
): Promise<PolicyViolation[]> {
  const found: PolicyViolation[] = [];
  const chars = characters(password);
  if (chars.length < policy.minLength) found.push({ rule: "to_short", low: policy.minLength });
  if (chars.length > policy.maxLength) found.push({ rule: "to_long", high: policy.maxLength });

  const missingGroups = policy.groups.filter((group) => {
    const pattern = new RegExp(`[${group.chars}]`, "u");
    return chars.filter((c) => pattern.test(c)).length < group.min;
  });
  if (missingGroups.length > 0) {
    found.push({
      rule: "not_enough_groups",
      no_matched_groups: missingGroups.map((g) => ({ desc: g.desc, min_number_symbols: g.min })),
    });
  }

  // Hash comparisons cost a scrypt each: only when a rule asks for them.
  if (policy.historyDepth > 0 && context.history?.length) {
    for (const old of context.history.slice(0, policy.historyDepth)) {
      if (await verifyPassword(password, old)) {
        found.push({ rule: "in_password_history" });
        break;
      }
    }
  }
  const isCurrent =
    context.currentPassword !== undefined
      ? context.currentPassword === password
      : context.currentHash
        ? await verifyPassword(password, context.currentHash)
        : false;
  if (isCurrent) found.push({ rule: "eq_current" });

  if (policy.minNewChars > 0 && context.currentPassword !== undefined) {
    const old = new Set(characters(context.currentPassword));
    const fresh = new Set(chars.filter((c) => !old.has(c)));
    if (fresh.size < policy.minNewChars) found.push({ rule: "not_enough_new_chars", minNew: policy.minNewChars });
  }

  const lower = password.toLowerCase();
  const stopWord = policy.stopWords.find((word) => lower.includes(word.toLowerCase()));
  if (stopWord) found.push({ rule: "in_stop_dic", stop_word: stopWord });
  if (policy.dictionary && isCommon(password)) found.push({ rule: "in_password_dic" });

  if (policy.minAgeSeconds > 0 && context.changedAt !== undefined) {
    const now = context.now ?? Math.floor(Date.now() / 1000);
    if (now - context.changedAt < policy.minAgeSeconds)
      found.push({ rule: "too_young", minAgeInSec: policy.minAgeSeconds });
  }

  if (containsIdentifier(password, context.identity)) found.push({ rule: "id_store" });
  return found;
}

/** Human words for each rule, for error `desc` texts and registration `errMsg`. */
export function describeViolation(violation: PolicyViolation): string {
  switch (violation.rule) {
    case "to_short":
      return `the password must have at least ${violation.low} characters`;
    case "to_long":
      return `the password must have at most ${violation.high} characters`;
    case "not_enough_groups":
      return `the password needs more characters of: ${violation.no_matched_groups.map((g) => `${g.desc} (${g.min_number_symbols})`).join(", ")}`;
    case "in_password_history":
      return "the password was used before";
    case "eq_current":
      return "the new password equals the current one";
    case "not_enough_new_chars":
      return `the password needs at least ${violation.minNew} characters not in the current one`;
    case "in_stop_dic":
      return `the password contains the forbidden word "${violation.stop_word}"`;
    case "in_password_dic":
      return "the password is one of the most common passwords";
    case "too_young":
      return `the password was changed less than ${violation.minAgeInSec} seconds ago`;
    case "id_store":
      return "the password must not contain the account's identifiers";
  }
}

const COMPOSITION = /^[\p{L}\p{N}]$/u;

/**
 * A password that passes the policy, for SPEC 4.1's generated passwords: random
 * characters from every configured group first, then letters and digits.
 */
export function generatePassword(policy: PasswordPolicy, random: (max: number) => number): string {
  const alphabet = "abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789";
  const length = Math.max(policy.minLength, 16);
  const chars: string[] = [];
  for (const group of policy.groups) {
    const members = [...new Set(groupMembers(group.chars))];
    for (let i = 0; i < group.min; i++) chars.push(members[random(members.length)]);
  }
  while (chars.length < length) chars.push(alphabet[random(alphabet.length)]);
  // Fisher-Yates, so the group characters are not all at the front.
  for (let i = chars.length - 1; i > 0; i--) {
    const j = random(i + 1);
    [chars[i], chars[j]] = [chars[j], chars[i]];
  }
  return chars.join("");
}

/** The printable ASCII and common Cyrillic characters a character class admits. */
function groupMembers(charClass: string): string[] {
  const pattern = new RegExp(`[${charClass}]`, "u");
  const pool: string[] = [];
  for (let code = 0x21; code < 0x7f; code++) pool.push(String.fromCharCode(code));
  for (let code = 0x410; code <= 0x44f; code++) pool.push(String.fromCharCode(code));
  const members = pool.filter((c) => pattern.test(c));
  return members.length > 0 ? members : pool.filter((c) => COMPOSITION.test(c));
}
