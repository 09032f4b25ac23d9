import { ApiError, OAuthError, problems } from "../errors";
import { SYSTEM_PERMISSIONS } from "../permissions";
import { type GrantRef, grantId } from "../rights/plan";
import type { RightRepository } from "../rights/ports";
import { OPERATOR_CONSOLE_CLIENT, OPERATOR_SCOPE } from "./console-client";
import type { OperatorRole } from "./role";

/**
 * Who may use the admin console, and with what authority (docs/decisions/operator-authority.md).
 * An operator is an ordinary account holding a right over the console application in the
 * rights model: APP_ADMIN for full control, SYS_MON to look without changing anything. Only
 * tokens issued to the console, for a session that proved a second factor, act as one, and
 * the right is read again with every call, so revoking it takes effect at once.
 */

export type { OperatorRole };

/** The rights that make an operator, strongest first. */
const OPERATOR_RIGHTS: ReadonlyArray<readonly [right: string, role: OperatorRole]> = [
  ["APP_ADMIN", "admin"],
  ["SYS_MON", "monitor"],
];

/** How recent a sign-in must be for a destructive change (issue 38: 10 minutes). */
export const RECENT_SIGN_IN_SECONDS = 600;

/** The amr value of a sign-in that proved two factors (a second step, or a user-verified passkey). */
const MULTI_FACTOR = "mfa";

/** The grants that would make `sub` an operator. */
export function operatorGrants(sub: string): GrantRef[] {
  return OPERATOR_RIGHTS.map(([right]) => ({
    subject: { kind: "user", id: sub },
    object: { kind: "its", id: OPERATOR_CONSOLE_CLIENT },
    right,
  }));
}

/** The strongest role among the rights held, by right name. */
export function roleOf(held: ReadonlySet<string>): OperatorRole | undefined {
  return OPERATOR_RIGHTS.find(([right]) => held.has(right))?.[1];
}

/** Whether a request or a token is the console's: its client, asking for the operator scope. */
export const isConsoleClient = (clientId: string | undefined) => clientId === OPERATOR_CONSOLE_CLIENT;

export const asksOperatorScope = (scopes: Iterable<string>) => [...scopes].includes(OPERATOR_SCOPE);

export const provedSecondFactor = (amr: readonly string[] | undefined) => amr?.includes(MULTI_FACTOR) ?? false;

/**
 * What an operator's calls may name: every system permission; a monitor's are then held to
 * reads by the method (./operator.ts `operatorMayCall`), since most permissions cover both.
 */
export const OPERATOR_PERMISSIONS: ReadonlySet<string> = new Set([...SYSTEM_PERMISSIONS]);

/** The role the grants found (by grantId) give `sub`. */
export function roleFrom(sub: string, held: ReadonlySet<string>): OperatorRole | undefined {
  return roleOf(
    new Set(
      operatorGrants(sub)
        .filter((ref) => held.has(grantId(ref)))
        .map((ref) => ref.right),
    ),
  );
}

/** The role `sub` holds now: one strongly consistent read of both grants. */
export async function currentRole(rights: Pick<RightRepository, "readGrants">, sub: string) {
  const read = await rights.readGrants(operatorGrants(sub));
  // A grant exists while it has a tag (interface §2.4): absent ones read as null.
  return roleFrom(sub, new Set([...read].filter(([, state]) => state).map(([id]) => id)));
}

/**
 * The console's sign-in, once the browser is signed in: only an operator, and only with a
 * second factor proved in this session. Refusals go back to the console (access_denied).
 */
export async function admitOperator(
  rights: Pick<RightRepository, "readGrants">,
  sub: string,
  amr: readonly string[] | undefined,
): Promise<OperatorRole> {
  if (!provedSecondFactor(amr))
    throw new OAuthError("access_denied", "the admin console needs a sign-in with a second factor");
  const role = await currentRole(rights, sub);
  if (!role) throw new OAuthError("access_denied", "this account is not an operator of the service");
  return role;
}

/** A monitor reads; a change needs an admin. A destructive change needs a recent sign-in too. */
export function operatorMayCall(
  operator: { role: OperatorRole; authTime: number },
  call: { method: string; recentSignIn?: boolean },
  now: number,
): void {
  if (operator.role === "monitor" && call.method !== "GET")
    throw new ApiError(
      403,
      "security_error",
      "read_only_operator",
      "a monitoring operator (SYS_MON) cannot change anything",
      {
        v2Code: "access_denied",
      },
    );
  if (call.recentSignIn && now - operator.authTime > RECENT_SIGN_IN_SECONDS)
    throw problems.badAccessToken("this change needs a sign-in within the last 10 minutes", {
      error: "insufficient_user_authentication",
      maxAge: RECENT_SIGN_IN_SECONDS,
    });
}

/**
 * Tokens for the console go only to an operator, checked at the code exchange and at every
 * refresh (the API checks again on every call). Other clients' tokens need no check.
 */
export async function consoleTokenRole(
  rights: Pick<RightRepository, "readGrants"> | undefined,
  clientId: string,
  sub: string,
): Promise<OperatorRole | undefined> {
  if (!isConsoleClient(clientId)) return undefined;
  const role = rights ? await currentRole(rights, sub) : undefined;
  if (!role) throw new OAuthError("invalid_grant", "this account is not an operator of the service");
  return role;
}
