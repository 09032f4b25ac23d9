import { randomUUID } from "node:crypto";
import { prepareNewAccount } from "../accounts/new-account";
import { AccountConflictError, type AccountRepository } from "../accounts/ports";
import { hashPassword } from "../credentials/password-hash";
import { HookFailedError, type HookRunner } from "../hooks/ports";

/** What moving a user from the old system needs: the hook, and where accounts are created. */
export interface UserMigrationDeps {
  hooks: HookRunner;
  accounts: AccountRepository;
}

export interface MigrationRequest {
  trigger: "signIn" | "forgotPassword";
  username: string;
  /** signIn only: checked by the old system, then hashed by us (scrypt) like every password. */
  password?: string;
  clientId: string;
  ip?: string;
  userAgent?: string;
}

/**
 * The userMigration hook (docs/hooks.md), asked only when the login names no account: when
 * the old system knows the user (and, at a sign-in, the password), the account is created
 * with the password hashed by us. The creation is conditional on every unique value, so two
 * sign-ins racing create one account; the loser finds it on its second look. Answers whether
 * an account now exists for the caller to look up again. Throws HookFailedError.
 */
export async function migrateUser(deps: UserMigrationDeps, request: MigrationRequest, now: number): Promise<boolean> {
  if (!deps.hooks.configured("userMigration")) return false;
  const answer = await deps.hooks.call("userMigration", {
    trigger: request.trigger,
    username: request.username,
    clientId: request.clientId,
    ...(request.password !== undefined && { password: request.password }),
    ...(request.ip && { ip: request.ip }),
    ...(request.userAgent && { userAgent: request.userAgent }),
  });
  if (answer?.action !== "migrate") return false;
  const prepared = prepareNewAccount({ ...answer.user }, now, randomUUID);
  // Attributes our own registration would refuse are the hook's fault, as a malformed answer is.
  if (!("account" in prepared)) throw new HookFailedError("userMigration", "malformed");
  const hash = request.password === undefined ? undefined : await hashPassword(request.password);
  try {
    await deps.accounts.create(prepared.account, hash);
  } catch (error) {
    if (!(error instanceof AccountConflictError)) throw error;
  }
  return true;
}
