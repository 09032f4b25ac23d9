import { codeMatches } from "../codes/one-time-code";
import { ApiError, problems } from "../errors";
import { type Account, type AccountView, accountView, PENDING_FIELD } from "./account";
import { CONTACT_POS } from "./change-plan";
import { AccountChangedError, AccountConflictError, type AccountRepository } from "./ports";

/**
 * interface §3.2 answers of a confirmation. Statuses (the spec leaves them open): the
 * changed account 200, wrong_code 400, no_attempts_left 429, code_expired 410.
 */
export type ConfirmationAnswer =
  | { status: 200; body: AccountView }
  | { status: 400; body: { msg: "wrong_code"; attempts_left: number } }
  | { status: 429; body: { cause: "no_attempts_left" } }
  | { status: 410; body: { cause: "code_expired" } };

const noAttempts = { status: 429, body: { cause: "no_attempts_left" } } as const;

function unknownState(): ApiError {
  return new ApiError(404, "input_error", "unknown_state", "no contact change waits under this state", {
    pos: "state",
  });
}

export async function confirmContactChange(
  accounts: AccountRepository,
  sub: string,
  field: "phone_number" | "email",
  state: string,
  code: string,
  /** A user token's account, read with its session; the change is guarded by conditions either way. */
  alreadyRead?: Account,
  now = Math.floor(Date.now() / 1000),
): Promise<ConfirmationAnswer> {
  const account = alreadyRead?.sub === sub ? alreadyRead : await accounts.get(sub);
  const pending = account?.[PENDING_FIELD[field]];
  if (!account || !pending || pending.state !== state) throw unknownState();
  if (pending.attemptsLeft <= 0) return noAttempts;
  if (now > pending.exp) return { status: 410, body: { cause: "code_expired" } };
  if (!codeMatches(code, pending)) {
    const left = await accounts.recordWrongContactCode(sub, field, state);
    if (left === undefined) return noAttempts;
    return { status: 400, body: { msg: "wrong_code", attempts_left: left } };
  }
  try {
    return { status: 200, body: accountView(await accounts.applyContactChange(account, field, now), now) };
  } catch (error) {
    if (error instanceof AccountConflictError) {
      throw problems.contactUseViolation(CONTACT_POS[field], "the value was taken by another account meanwhile");
    }
    if (!(error instanceof AccountChangedError)) throw error;
    // A guard refused: a concurrent wrong answer spent the last attempt, a new change
    // replaced this one, or the contact itself changed. The stored state says which.
    const fresh = (await accounts.get(sub))?.[PENDING_FIELD[field]];
    if (!fresh || fresh.state !== state) throw unknownState();
    if (fresh.attemptsLeft <= 0) return noAttempts;
    throw problems.wrongValue("state", "the account changed while this request ran; try again");
  }
}
