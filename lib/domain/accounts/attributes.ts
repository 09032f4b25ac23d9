import {
  AccountChangedError,
  AccountConflictError,
  AccountNotFoundError,
  type AccountStore,
} from "../../store/accounts";
import { problems } from "../errors";
import { type AccountView, accountView } from "./account";
import { type AccountChangeBody, CONTACT_POS, isEmptyPlan, planAccountChange } from "./change-plan";

/** SPEC 4.6 read: one strongly consistent GetItem. */
export async function readAccount(accounts: AccountStore, sub: string): Promise<AccountView> {
  const account = await accounts.get(sub);
  if (!account) throw problems.unknownUser(sub);
  return accountView(account);
}

/**
 * SPEC 4.6 change. Names and the lock cost one conditional UpdateItem; a contact change
 * reads the account to release its old uniqueness claim in the same transaction.
 */
export async function changeAccount(
  accounts: AccountStore,
  sub: string,
  body: AccountChangeBody,
  mode: "user" | "system",
): Promise<AccountView> {
  const plan = planAccountChange(sub, body, mode);
  if (isEmptyPlan(plan)) return readAccount(accounts, sub);
  const touchesContacts = Object.keys(plan.contacts).length > 0;
  try {
    const current = touchesContacts ? await accounts.get(sub) : undefined;
    if (touchesContacts && !current) throw problems.unknownUser(sub);
    const changed = await accounts.update(
      sub,
      { set: plan.set, remove: plan.remove, contacts: plan.contacts },
      current,
    );
    return accountView(changed);
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
