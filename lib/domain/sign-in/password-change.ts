import type { Account } from "../accounts/account";
import { hashPassword, needsRehash, type StoredPasswordHash } from "../credentials/password-hash";
import { OAuthError } from "../errors";
import type { LoginSnapshot } from "../login/ports";
import { checkPassword, describeViolation } from "../passwords/policy";
import type { PendingWrite } from "../unit-of-work";
import type { LoginDeps, NewCredential } from "./login-commit";

/**
 * A forced change's new password under the policy, with the history. "Differs from the
 * current one" is checked against the stored hash when the current password's text is not
 * at hand (the hosted pages' change step asks for the new password alone).
 */
export async function changedCredential(
  account: Account,
  current: string | undefined,
  next: string,
  snapshot: Pick<LoginSnapshot, "credential">,
  deps: Pick<LoginDeps, "settings" | "breachedPasswords">,
): Promise<NewCredential> {
  const policy = deps.settings.passwordPolicy;
  const history = snapshot.credential?.history ?? [];
  const stored = snapshot.credential as NonNullable<typeof snapshot.credential>;
  const { history: _old, changedAt: _at, ...currentHash } = stored;
  const violations = await checkPassword(next, policy, {
    identity: { sub: account.sub, email: account.email?.value, phone: account.phone_number?.value },
    ...(current !== undefined ? { currentPassword: current } : { currentHash: currentHash as StoredPasswordHash }),
    history,
    breachedPasswords: deps.breachedPasswords,
  });
  if (violations.length > 0) {
    throw new OAuthError(
      "invalid_grant",
      `new_password: ${violations.map(describeViolation).join("; ")}`,
      "password_policy",
      violations,
    );
  }
  return {
    hash: await hashPassword(next),
    history: [currentHash as StoredPasswordHash, ...history].slice(0, Math.max(policy.historyDepth, 0)),
  };
}

/**
 * A foreign hash (import) or one with outdated parameters is replaced by our scrypt hash of
 * the password just proved, only if no change came between.
 */
export async function rehashItems(
  account: Account,
  password: string,
  snapshot: Pick<LoginSnapshot, "credential">,
  deps: Pick<LoginDeps, "logins">,
): Promise<PendingWrite[]> {
  const stored = snapshot.credential;
  if (!stored || !needsRehash(stored)) return [];
  return [deps.logins.rehashItem(account.sub, await hashPassword(password), stored)];
}
