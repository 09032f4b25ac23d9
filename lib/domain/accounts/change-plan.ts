import { type FieldProblem, problems } from "../errors";
import type { NameAttribute, StoredContact } from "./account";
import { NAME_ATTRIBUTES } from "./account";
import { normalizeEmail, normalizePhone } from "./contacts";

/** Body of interface §4.6 attribute change, after schema validation. */
export interface AccountChangeBody {
  sub?: unknown;
  meta?: unknown;
  family_name?: string | null;
  given_name?: string | null;
  middle_name?: string | null;
  locked?: boolean;
  phone_number?: { value: string; vrf: boolean };
  email?: { value: string; vrf: boolean };
}

export interface AccountChangePlan {
  set: Partial<Record<NameAttribute, string>> & { locked?: boolean };
  remove: NameAttribute[];
  /** vrf true: changed at once (applications only). */
  contacts: { phone_number?: StoredContact; email?: StoredContact };
  /** vrf false: a code goes to the new value, which waits for it (interface §3.2). */
  confirmations: { phone_number?: string; email?: string };
}

/** interface §7.2 names the phone field `mobile` in contact errors. */
export const CONTACT_POS = { phone_number: "mobile", email: "email" } as const;

export function contactProblem(field: "phone_number" | "email", desc: string): FieldProblem {
  return { error: "contact_use_violation", pos: CONTACT_POS[field], desc };
}

/**
 * Decides what an attribute change does, or every reason it cannot. `sub` may be sent
 * back unchanged and `meta` is ignored, so a client can post what it read.
 */
export function planAccountChange(
  subject: string,
  body: AccountChangeBody,
  mode: "user" | "system",
): AccountChangePlan {
  const found: FieldProblem[] = [];
  const plan: AccountChangePlan = { set: {}, remove: [], contacts: {}, confirmations: {} };
  if (body.sub !== undefined && body.sub !== subject) {
    found.push({ error: "unmodifiable", pos: "sub", desc: "sub cannot be changed" });
  }
  for (const name of NAME_ATTRIBUTES) {
    const value = body[name];
    if (value === null) plan.remove.push(name);
    else if (value !== undefined) plan.set[name] = value;
  }
  if (body.locked !== undefined) {
    if (mode === "user")
      found.push({ error: "system_only", pos: "locked", desc: "only an application can lock or unlock" });
    else plan.set.locked = body.locked;
  }
  for (const field of ["phone_number", "email"] as const) {
    const change = body[field];
    if (!change) continue;
    if (mode === "user" && change.vrf) {
      found.push(contactProblem(field, "a user confirms a new contact with a code; vrf=true is for applications"));
      continue;
    }
    const value = field === "phone_number" ? normalizePhone(change.value) : normalizeEmail(change.value);
    if (!value) {
      found.push(
        contactProblem(
          field,
          field === "phone_number" ? "phone number must be (country code)XXXXXXXXXX" : "e-mail address is not valid",
        ),
      );
      continue;
    }
    if (change.vrf) plan.contacts[field] = { value, verified: true };
    else plan.confirmations[field] = value;
  }
  // A single contact problem is answered unwrapped, as interface §7.2 shows it.
  if (found.length === 1 && found[0].error === "contact_use_violation") {
    throw problems.contactUseViolation(found[0].pos, found[0].desc);
  }
  if (found.length > 0) throw problems.wrongValues(found);
  return plan;
}

export function isEmptyPlan(plan: AccountChangePlan): boolean {
  return (
    Object.keys(plan.set).length === 0 &&
    plan.remove.length === 0 &&
    Object.keys(plan.contacts).length === 0 &&
    Object.keys(plan.confirmations).length === 0
  );
}
