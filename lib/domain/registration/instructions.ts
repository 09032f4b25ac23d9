import { codeState } from "../codes/one-time-code";
import type { ContactField, PendingContact, PendingRegistration } from "./pending";

/** interface §3.3 instruction for one contact. `attemts` is the spec's spelling. */
export interface Instruction {
  mobile?: string;
  email?: string;
  exp?: number;
  attemts?: number;
  name: string;
}

const PREFIX: Record<ContactField, "mbl" | "eml"> = { phone_number: "mbl", email: "eml" };
const KEY: Record<ContactField, "mobile" | "email"> = { phone_number: "mobile", email: "email" };

/**
 * What the caller must do next for one unconfirmed contact. A code that has already
 * been answered wrongly says try-again; expired and exhausted codes carry no exp or
 * attempts, since only a resend helps then.
 */
export function instructionFor(
  field: ContactField,
  contact: PendingContact,
  attempts: number,
  now: number,
): Instruction {
  const who = { [KEY[field]]: contact.value };
  const state = codeState(contact, now);
  if (state === "no-attempts") return { ...who, name: `${PREFIX[field]}-no-attempts` };
  if (state === "expired") return { ...who, name: `${PREFIX[field]}-expired` };
  const name = contact.attemptsLeft < attempts ? "try-again" : "enter-code";
  return { ...who, exp: contact.exp, attemts: contact.attemptsLeft, name: `${PREFIX[field]}-${name}` };
}

/** Instructions for every contact still unconfirmed, phone first. */
export function instructionsOf(pending: PendingRegistration, attempts: number, now: number): Instruction[] {
  return (["phone_number", "email"] as const).flatMap((field) => {
    const contact = pending.contacts[field];
    return contact && !contact.confirmed ? [instructionFor(field, contact, attempts, now)] : [];
  });
}
