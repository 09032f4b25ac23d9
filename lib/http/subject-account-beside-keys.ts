import type { Account } from "../domain/accounts/account";
import { services } from "../services";
import type { AlongKeys } from "./along-session";

/**
 * For routes whose first read is the account their path names: a cold container reads it
 * beside the signing keys. The route finds it in `ApiCall.alongSession`.
 */
export const subjectAccountBesideKeys: AlongKeys = ({ subject }) =>
  subject === undefined ? undefined : { beside: () => services().accounts.get(subject) };

/** The account read beside the keys, when it is the one `sub` names (undefined otherwise, or when none was found). */
export function accountReadEarly(alongSession: unknown, sub: string): Account | undefined {
  const account = alongSession as Account | undefined;
  return account?.sub === sub ? account : undefined;
}
