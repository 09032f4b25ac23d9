import type { FieldProblem } from "../errors";
import type { Account } from "./account";
import { normalizeEmail, normalizePhone } from "./contacts";

/** What an operator or a registration supplies for a new account. */
export interface NewAccountInput {
  sub?: string;
  family_name?: string;
  given_name?: string;
  middle_name?: string;
  locked?: boolean;
  phone_number?: { value: string; verified?: boolean };
  email?: { value: string; verified?: boolean };
}

export const SUB_PATTERN = "^[A-Za-z0-9][A-Za-z0-9._@~+-]{0,127}$";
const SUB = new RegExp(SUB_PATTERN);

/** Validates and normalizes; returns the account or every problem found. */
export function prepareNewAccount(
  input: NewAccountInput,
  now: number,
  newSub: () => string,
): { account: Account } | { problems: FieldProblem[] } {
  const problems: FieldProblem[] = [];
  const sub = input.sub ?? newSub();
  if (!SUB.test(sub)) {
    problems.push({
      error: "wrong_value",
      pos: "sub",
      desc: "sub must be 1 to 128 letters, digits or . _ @ ~ + - and start with a letter or digit",
    });
  }
  const phone = input.phone_number && normalizePhone(input.phone_number.value);
  if (input.phone_number && !phone) {
    problems.push({ error: "wrong_value", pos: "phone_number", desc: "phone number must be (country code)XXXXXXXXXX" });
  }
  const email = input.email && normalizeEmail(input.email.value);
  if (input.email && !email) {
    problems.push({ error: "wrong_value", pos: "email", desc: "e-mail address is not valid" });
  }
  if (problems.length > 0) return { problems };
  return {
    account: {
      sub,
      family_name: input.family_name,
      given_name: input.given_name,
      middle_name: input.middle_name,
      locked: input.locked ?? false,
      phone_number: phone ? { value: phone, verified: input.phone_number?.verified ?? false } : undefined,
      email: email ? { value: email, verified: input.email?.verified ?? false } : undefined,
      createdAt: now,
      updatedAt: now,
    },
  };
}
