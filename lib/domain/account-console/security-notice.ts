import type { Account } from "../accounts/account";
import type { Courier, Language, SecurityChange } from "../messages/ports";

/**
 * The notice a careful provider sends after a change to how an account signs in or is
 * reached: to the account's e-mail as it was before the change. Not part of the change:
 * the change stands whether or not the notice arrives (a failure is logged).
 */
export async function sendSecurityNotice(
  deps: { courier: Courier; log: (message: string, fields: Record<string, unknown>) => void },
  to: Pick<Account, "sub" | "email">,
  change: SecurityChange,
  language: Language,
  now: number,
): Promise<void> {
  const email = to.email?.value;
  if (!email) return;
  const when = new Date(now * 1000).toISOString().replace("T", " ").slice(0, 16);
  try {
    await deps.courier.send("email", email, "security-change", { change, when }, language);
  } catch (error) {
    deps.log("security notice not sent", { sub: to.sub, change, error: (error as Error).message });
  }
}
