import type { Account } from "../accounts/account";
import type { AccountSecurityRepository } from "../accounts/ports";
import { ApiError, problems } from "../errors";

/** interface §4.12 view of an account's authentication modes. */
export function authModesView(account: Account) {
  return {
    ...(account.requiredFactor !== undefined && { requiredFactor: account.requiredFactor }),
    needPasswordChange: account.needPasswordChange ?? false,
    methodsLocked: account.methodsLocked ?? [],
  };
}

export interface AuthModesBody {
  requiredFactor?: 2 | null;
  needPasswordChange?: true;
  methodsLocked?: Array<"password">;
}

/**
 * interface §4.12 change. A second factor can be required only of an account that has one
 * (lib/domain/security/second-factor.ts); `hasSecondFactor` tells.
 */
export async function changeAuthModes(
  store: AccountSecurityRepository,
  sub: string,
  body: AuthModesBody,
  hasSecondFactor: (sub: string) => Promise<boolean>,
) {
  if (body.requiredFactor === 2 && !(await hasSecondFactor(sub))) {
    throw new ApiError(
      400,
      "input_error",
      "has_not_sf_methods",
      "the account has no second-factor method (TOTP, passkey, or a confirmed e-mail or phone when codes by it are on)",
      {
        pos: "requiredFactor",
      },
    );
  }
  const set: Partial<Pick<Account, "requiredFactor" | "needPasswordChange" | "methodsLocked">> = {};
  const remove: Array<"requiredFactor" | "needPasswordChange"> = [];
  if (body.requiredFactor === 2) set.requiredFactor = 2;
  if (body.requiredFactor === null) remove.push("requiredFactor");
  if (body.needPasswordChange === true) set.needPasswordChange = true;
  if (body.methodsLocked !== undefined) set.methodsLocked = [...new Set(body.methodsLocked)];
  const changed = await store.setModes(sub, set, remove);
  if (!changed) throw problems.unknownUser(sub);
  return authModesView(changed);
}
