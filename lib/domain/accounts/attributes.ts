import { randomBytes } from "node:crypto";
import type { ServiceSettings } from "../../config/settings";
import type { StoredCode } from "../codes/one-time-code";
import { sendConfirmationCode } from "../codes/send-code";
import { ApiError, problems } from "../errors";
import { type Courier, MessageNotSentError } from "../messages/ports";
import type { SessionRepository } from "../sessions/ports";
import {
  type Account,
  type AccountView,
  accountView,
  PENDING_FIELD,
  type PendingContactChange,
  touchesProvisioned,
} from "./account";
import { type AccountChangeBody, CONTACT_POS, isEmptyPlan, planAccountChange } from "./change-plan";
import { contactStateOf } from "./instance-id";
import {
  AccountChangedError,
  AccountConflictError,
  AccountNotFoundError,
  AccountProvisionedError,
  type AccountRepository,
  type ContactCodeCaps,
  type ContactCodeLimits,
} from "./ports";

/** 409: the organization's SCIM provisioning owns what the call would change (docs/scim.md). */
const provisioned = (orgId: string) =>
  new ApiError(
    409,
    "process_error",
    "provisioned_account",
    "the organization's provisioning (SCIM) manages this account's names, e-mail address and unlocking; change them there",
    { params: { orgId }, v2Code: "provisioned_account" },
  );

export interface AttributeDeps {
  accounts: AccountRepository;
  /** A lock ends the account's sessions, so their clients hear of it (Back-Channel Logout). */
  sessions: Pick<SessionRepository, "endSessionsAndDevices">;
  contactCodes: ContactCodeLimits;
  courier: Courier;
  settings: ServiceSettings;
}

/**
 * Contact-change codes: as many an hour per address as a registration
 * sends per contact, a minute apart; an account may try two addresses' worth.
 */
export const CONTACT_CODE_CAPS: ContactCodeCaps = { perAccountPerHour: 10, perAddressPerHour: 5, coolDownSeconds: 60 };
/** Within this window a new code to the same address keeps the attempts the last one left. */
const ATTEMPTS_WINDOW_SECONDS = 3600;

function tooManyCodes(field: "phone_number" | "email"): ApiError {
  return new ApiError(
    429,
    "input_error",
    "too_many_codes",
    "no more codes can be sent to this contact now; try later",
    {
      pos: CONTACT_POS[field],
    },
  );
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
 * A code for a contact change (vrf false). Whether another account holds the value is
 * checked only when the code comes back (the claim's conditional write), so this answer
 * tells nothing about other accounts. The send is counted first (caps per account and
 * per address); the account's waiting change is stored only after the send succeeded.
 */
async function startConfirmation(
  deps: AttributeDeps,
  account: Account,
  field: "phone_number" | "email",
  value: string,
  language: "ru" | "en",
  now: number,
): Promise<PendingContactChange> {
  // Attempts are counted across codes to one address: a resend gives no fresh guesses.
  const previous = account[PENDING_FIELD[field]];
  const carried =
    previous?.value === value && previous.created > now - ATTEMPTS_WINDOW_SECONDS ? previous.attemptsLeft : undefined;
  if (carried !== undefined && carried <= 0) throw tooManyCodes(field);
  if (!(await deps.contactCodes.takeSend(account.sub, field, value, now, CONTACT_CODE_CAPS))) throw tooManyCodes(field);
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
  if (carried !== undefined) stored.attemptsLeft = Math.min(stored.attemptsLeft, carried);
  const state = contactStateOf(account.sub, randomBytes(18).toString("base64url"));
  return { state, value, created: now, ...stored };
}

/**
 * interface §4.6 change. Names cost one conditional UpdateItem (a lock then ends the account's
 * sessions: a Query and a transaction); a contact change
 * with vrf true reads the account to release its old uniqueness claim in the same
 * transaction; vrf false sends a code and records the waiting change on the account.
 */
export async function changeAccount(
  deps: AttributeDeps,
  sub: string,
  body: AccountChangeBody,
  caller: { mode: "user" | "system"; language: "ru" | "en"; account?: Account },
): Promise<AccountView> {
  const plan = planAccountChange(sub, body, caller.mode);
  if (isEmptyPlan(plan)) return readAccount(deps.accounts, sub);
  const now = Math.floor(Date.now() / 1000);
  const confirming = (["phone_number", "email"] as const).filter((field) => plan.confirmations[field]);
  const touchesContacts = Object.keys(plan.contacts).length > 0;
  try {
    // A user token's account was read with its session; a code needs the waiting change it replaces.
    const read = caller.account?.sub === sub ? caller.account : undefined;
    const current = touchesContacts || confirming.length > 0 ? (read ?? (await deps.accounts.get(sub))) : undefined;
    if ((touchesContacts || confirming.length > 0) && !current) throw problems.unknownUser(sub);
    // Before any code goes out: an address the organization provisions is changed there.
    const wanted = { set: { ...plan.set, ...plan.confirmations }, remove: plan.remove, contacts: plan.contacts };
    if (current?.scimOrg && touchesProvisioned(wanted)) throw new AccountProvisionedError(current.scimOrg);
    const set: Partial<Account> = { ...plan.set };
    const replacesPending: Partial<Record<"phone_number" | "email", string | null>> = {};
    for (const field of confirming) {
      const value = plan.confirmations[field] as string;
      set[PENDING_FIELD[field]] = await startConfirmation(deps, current as Account, field, value, caller.language, now);
      replacesPending[field] = current?.[PENDING_FIELD[field]]?.state ?? null;
    }
    const changed = await deps.accounts.update(
      sub,
      { set, remove: plan.remove, contacts: plan.contacts, replacesPending },
      touchesContacts ? current : undefined,
    );
    // The lock already refuses every token of the account (its session check); ending the
    // sessions after it tells their clients. A failure here leaves a locked account whose
    // sessions end at the next lock or reset: the answer says so by failing.
    if (plan.set.locked === true) {
      await deps.sessions.endSessionsAndDevices(sub, { session: () => true, device: () => false });
    }
    return accountView(changed, now);
  } catch (error) {
    if (error instanceof AccountNotFoundError) throw problems.unknownUser(sub);
    if (error instanceof AccountConflictError) {
      const field = error.fields.find((f) => f === "email" || f === "phone_number") ?? "email";
      throw problems.contactUseViolation(CONTACT_POS[field], "the value is already used by another account");
    }
    if (error instanceof AccountProvisionedError) throw provisioned(error.orgId);
    if (error instanceof AccountChangedError) {
      throw problems.wrongValue("body", "the account changed while this request ran; read it and try again");
    }
    throw error;
  }
}
