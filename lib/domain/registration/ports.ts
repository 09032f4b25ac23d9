import type { StoredCode } from "../codes/one-time-code";
import type { PendingWrite, UnitOfWork } from "../unit-of-work";
import type { ContactField, PendingRegistration } from "./pending";

/** What a registration would collide with, read before any code is sent. */
export interface RegistrationCheck {
  used: Array<"sub" | "email" | "phone_number">;
  dynamicClient?: "free" | "bound" | "unknown";
}

/** Registrations waiting for their codes; `commit` runs a flow's writes together. */
export interface RegistrationRepository extends UnitOfWork {
  /** One read: which unique values are taken, and the dynamic client's state. */
  check(
    sub: string,
    email: string | undefined,
    phone: string | undefined,
    dynamicClientId: string | undefined,
  ): Promise<RegistrationCheck>;
  /** A new pending registration, for a commit. */
  putItem(pending: PendingRegistration): PendingWrite;
  save(pending: PendingRegistration): Promise<void>;
  /** The registration, or undefined when unknown, completed or expired. */
  get(context: string, now: number): Promise<PendingRegistration | undefined>;
  /** Counts one wrong code; undefined when no attempt was left to count. */
  recordWrongCode(context: string, field: ContactField): Promise<PendingRegistration | undefined>;
  /** Marks a contact confirmed, guarded so only the stored code, unexpired with attempts left, confirms it once. */
  confirmItem(context: string, field: ContactField, digest: string, now: number): PendingWrite;
  /**
   * Takes one of the hour's registration-attempt notices to this address; false when the
   * hour's `max` are spent (then none is sent).
   */
  takeNotice(field: ContactField, value: string, now: number, max: number): Promise<boolean>;
  /** Replaces a contact's code after a resend; false when the resend cap is reached. */
  replaceCode(context: string, field: ContactField, code: StoredCode, maxSent: number): Promise<boolean>;
  /**
   * Removes the registration as it completes: once, only when every other contact is
   * confirmed, and with `confirmItem`'s guards for the contact this request confirms.
   */
  completeItem(
    context: string,
    confirmedFields: ContactField[],
    finalCode: { field: ContactField; digest: string; now: number },
  ): PendingWrite;
}
