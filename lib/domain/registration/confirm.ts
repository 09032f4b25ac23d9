import { instanceIdOf } from "../accounts/instance-id";
import { codeMatches, codeState } from "../codes/one-time-code";
import { registrationProblems } from "./errors";
import { instructionsOf } from "./instructions";
import { allConfirmed, type ContactField, type PendingRegistration } from "./pending";
import {
  createAccount,
  FlowRefusedError,
  MAX_CODES_PER_CONTACT,
  nowSeconds,
  type RegistrationCaller,
  type RegistrationDeps,
  type RegistrationResponse,
  registrationConfirmed,
  sendToContact,
} from "./register";

/** interface §4.5 body: exactly one of these. */
export interface ConfirmationBody {
  sms_code?: string;
  email_code?: string;
  sms_code_resend?: string;
  email_code_resend?: string;
}

const FIELD_OF = {
  sms_code: "phone_number",
  sms_code_resend: "phone_number",
  email_code: "email",
  email_code_resend: "email",
} as const satisfies Record<keyof ConfirmationBody, ContactField>;

const WHAT: Record<ContactField, string> = { phone_number: "phone number", email: "e-mail address" };

/** interface §4.5: a code, or a request for a new one, for one contact of a registration. */
export async function confirmRegistration(
  context: string,
  body: ConfirmationBody,
  caller: RegistrationCaller,
  deps: RegistrationDeps,
): Promise<RegistrationResponse> {
  const now = (deps.now ?? nowSeconds)();
  const pending = await deps.registrations.get(context, now);
  if (!pending) throw registrationProblems.unknownContext();
  const action = Object.keys(body)[0] as keyof ConfirmationBody;
  const field = FIELD_OF[action];
  const contact = pending.contacts[field];
  if (!contact || contact.confirmed) throw registrationProblems.notWaiting(action, WHAT[field]);

  if (action.endsWith("_resend")) return resend(pending, field, caller, deps, now);

  const presented = body[action] as string;
  if (codeState(contact, now) !== "valid") return answer(pending, deps, now);
  // A taken value's code was never sent: whatever is typed is a wrong code, and the page says just that.
  if (contact.taken || !codeMatches(presented, contact)) {
    const counted = await deps.registrations.recordWrongCode(context, field);
    return answer(counted ?? (await reread(context, deps, now)), deps, now);
  }
  return acceptCode(pending, field, caller, deps, now);
}

async function reread(context: string, deps: RegistrationDeps, now: number): Promise<PendingRegistration> {
  const fresh = await deps.registrations.get(context, now);
  if (!fresh) throw registrationProblems.unknownContext();
  return fresh;
}

function answer(pending: PendingRegistration, deps: RegistrationDeps, now: number): RegistrationResponse {
  return { instructions: instructionsOf(pending, deps.settings.codes.attempts, now), context: pending.context };
}

async function resend(
  pending: PendingRegistration,
  field: ContactField,
  caller: RegistrationCaller,
  deps: RegistrationDeps,
  now: number,
): Promise<RegistrationResponse> {
  const contact = pending.contacts[field];
  const tooMany = registrationProblems.tooManyCodes(field === "email" ? "email_code_resend" : "sms_code_resend");
  // Checked before sending, and again by the write, which concurrent resends race for.
  if (!contact || contact.sent >= MAX_CODES_PER_CONTACT) throw tooMany;
  const to = { field, value: contact.value, taken: contact.taken };
  const fresh = await sendToContact(to, caller.language, deps, now, contact.sent);
  if (!(await deps.registrations.replaceCode(pending.context, field, fresh, MAX_CODES_PER_CONTACT))) throw tooMany;
  return answer({ ...pending, contacts: { ...pending.contacts, [field]: fresh } }, deps, now);
}

/**
 * A right code. The write that records it carries the same guards as the check we
 * made (same code, attempts left, not expired, not yet confirmed), so a concurrent
 * wrong answer that spent the last attempt wins and this one is refused.
 */
async function acceptCode(
  pending: PendingRegistration,
  field: ContactField,
  caller: RegistrationCaller,
  deps: RegistrationDeps,
  now: number,
): Promise<RegistrationResponse> {
  const contact = pending.contacts[field];
  if (!contact) throw registrationProblems.unknownContext();
  const confirmed: PendingRegistration = {
    ...pending,
    contacts: { ...pending.contacts, [field]: { ...contact, confirmed: true } },
  };
  const last = allConfirmed(confirmed);
  const others = otherFields(pending, field);
  const finalCode = { field, digest: contact.digest, now };
  const record = last
    ? deps.registrations.completeItem(pending.context, others, finalCode)
    : deps.registrations.confirmItem(pending.context, field, contact.digest, now);

  if (pending.accountCreated) {
    // The account exists already: its contact becomes verified in the same transaction.
    const verified = deps.accounts.verifyContactItem(pending.account.sub, field, contact.value);
    if (!(await deps.registrations.commit([verified, record]))) return refused(pending, deps, now);
    if (!last) return answer(confirmed, deps, now);
    await registrationConfirmed(pending.clientId, pending.account, deps);
    return done(pending, []);
  }
  if (!last) {
    if (!(await deps.registrations.commit([record]))) return refused(pending, deps, now);
    return answer(confirmed, deps, now);
  }
  const account = {
    ...pending.account,
    phone_number: pending.account.phone_number && { ...pending.account.phone_number, verified: true },
    email: pending.account.email && { ...pending.account.email, verified: true },
  };
  try {
    const cookies = await createAccount(pending, account, caller, deps, now, [record]);
    await registrationConfirmed(pending.clientId, account, deps);
    return done(pending, cookies);
  } catch (error) {
    if (error instanceof FlowRefusedError) return refused(pending, deps, now);
    throw error;
  }
}

/** A guard refused the write: someone spent the attempts, resent or finished meanwhile. */
async function refused(pending: PendingRegistration, deps: RegistrationDeps, now: number) {
  return answer(await reread(pending.context, deps, now), deps, now);
}

function otherFields(pending: PendingRegistration, field: ContactField): ContactField[] {
  return (Object.keys(pending.contacts) as ContactField[]).filter((f) => f !== field);
}

function done(pending: PendingRegistration, cookies: Array<{ name: string; value: string }>): RegistrationResponse {
  return {
    instanceId: instanceIdOf(pending.account.sub),
    subject: pending.account.sub,
    context: pending.context,
    cookies,
    instructions: [],
  };
}
