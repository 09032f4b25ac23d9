import { randomBytes } from "node:crypto";
import type { ServiceSettings } from "../../config";
import type { StoredCode } from "../codes/one-time-code";
import { sendConfirmationCode } from "../codes/send-code";
import { ApiError, problems } from "../errors";
import { type Courier, MessageNotSentError } from "../messages/ports";
import { type Account, type AccountView, accountView, PENDING_FIELD, type PendingContactChange } from "./account";
import { type AccountChangeBody, CONTACT_POS, isEmptyPlan, planAccountChange } from "./change-plan";
import { contactStateOf } from "./instance-id";
import { AccountChangedError, AccountConflictError, AccountNotFoundError, type AccountRepository } from "./ports";

export interface AttributeDeps {
  accounts: AccountRepository;
  courier: Courier;
  settings: ServiceSettings;
}

/**
 * interface §4.6 read: one strongly consistent GetItem, or none in user mode, where the
 * session check has just read the account.
 */
export async function readAccount(
  accounts: AccountRepository,
  sub: string,
  alreadyRead?: Account,
): Promise<AccountView> {
  const account = alreadyRead?.sub === sub ? alreadyRead : await accounts.get(sub);
  if (!account) throw problems.unknownUser(sub);
  return accountView(account);
}

/**
 * A code for a contact change (vrf false): sent to the new value before anything is
 * stored, so a failed send changes nothing.
 */
async function startConfirmation(
  deps: AttributeDeps,
  sub: string,
  field: "phone_number" | "email",
  value: string,
  language: "ru" | "en",
  now: number,
): Promise<PendingContactChange> {
  const owner = await deps.accounts.claimOwner(field, value);
  if (owner !== undefined && owner !== sub) {
    throw problems.contactUseViolation(CONTACT_POS[field], "the value is already used by another account");
  }
  let stored: StoredCode;
  try {
    stored = await sendConfirmationCode(
      deps.courier,
      deps.settings.codes,
      { field, value },
      "contact-change",
      language,
      now,
    );
  } catch (error) {
    if (error instanceof MessageNotSentError) {
      throw new ApiError(502, "process_error", "message_not_sent", `${error.message}; nothing was changed`, {
        pos: CONTACT_POS[field],
      });
    }
    throw error;
  }
  return { state: contactStateOf(sub, randomBytes(18).toString("base64url")), value, created: now, ...stored };
}

/**
 * interface §4.6 change. Names and the lock cost one conditional UpdateItem; a contact change
 * with vrf true reads the account to release its old uniqueness claim in the same
 * transaction; vrf false sends a code and records the waiting change on the account.
 */
export async function changeAccount(
  deps: AttributeDeps,
  sub: string,
  body: AccountChangeBody,
  caller: { mode: "user" | "system"; language: "ru" | "en" },
): Promise<AccountView> {
  const plan = planAccountChange(sub, body, caller.mode);
  if (isEmptyPlan(plan)) return readAccount(deps.accounts, sub);
  const now = Math.floor(Date.now() / 1000);
  const touchesContacts = Object.keys(plan.contacts).length > 0;
  try {
    const set: Partial<Account> = { ...plan.set };
    for (const field of ["phone_number", "email"] as const) {
      const value = plan.confirmations[field];
      if (value) set[PENDING_FIELD[field]] = await startConfirmation(deps, sub, field, value, caller.language, now);
    }
    const current = touchesContacts ? await deps.accounts.get(sub) : undefined;
    if (touchesContacts && !current) throw problems.unknownUser(sub);
    const changed = await deps.accounts.update(sub, { set, remove: plan.remove, contacts: plan.contacts }, current);
    return accountView(changed, now);
  } catch (error) {
    if (error instanceof AccountNotFoundError) throw problems.unknownUser(sub);
    if (error instanceof AccountConflictError) {
      const field = error.fields.find((f) => f === "email" || f === "phone_number") ?? "email";
      throw problems.contactUseViolation(CONTACT_POS[field], "the value is already used by another account");
    }
    if (error instanceof AccountChangedError) {
      throw problems.wrongValue("body", "the account changed while this request ran; read it and try again");
    }
    throw error;
  }
}
