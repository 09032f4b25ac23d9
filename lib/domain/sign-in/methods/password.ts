import { hookAnswer } from "../../hooks/fail-closed";
import { migrateUser } from "../../login/user-migration";
import { verifyUserPassword } from "../../login/verify-user-password";
import type { LoginDeps } from "../login-commit";
import { type Proved, type Refused, refused, type SignInContext, type SignInMethod } from "../method";
import { countSignIn, recordRefusedSignIn } from "../refusals";

export interface PasswordInput {
  /** The sub, an e-mail or a phone. */
  username: string;
  password: string;
}

const WRONG = "invalid username or password";

/**
 * The password (the password grant and the hosted form): throttling per account and
 * address, one scrypt whether or not the login exists, and the userMigration hook for a
 * login the old system may know. An unknown login and a wrong password read the same.
 */
export function passwordMethod(
  deps: Pick<LoginDeps, "logins" | "events" | "metrics" | "migration">,
): SignInMethod<PasswordInput> {
  return {
    name: "password",
    amr: ["pwd"],
    secondFactor: "ask",
    async authenticate(input: PasswordInput, context: SignInContext): Promise<Proved | Refused> {
      const { now } = context;
      const addresses = context.addresses ?? [context.ip];
      const verify = () => verifyUserPassword(deps.logins, input.username, input.password, addresses, now);
      let verdict = await verify();
      // An unknown login may be a user of the old system: once migrated, the same checks run again.
      if (!verdict.ok && verdict.why === "wrong" && !verdict.account && deps.migration) {
        const migration = deps.migration;
        const request = { trigger: "signIn", ...context, ...input } as const;
        if (await hookAnswer(() => migrateUser(migration, request, now))) verdict = await verify();
      }
      if (verdict.ok) {
        const { account, snapshot, attempt } = verdict;
        return {
          kind: "proved",
          account,
          method: "password",
          amr: ["pwd"],
          secondFactor: "ask",
          items: [],
          attempt,
          password: { text: input.password, snapshot },
        };
      }
      if (verdict.why === "refused") {
        countSignIn(deps, "password", "throttled");
        return refused("throttled", verdict.message);
      }
      const signIn = { clientId: context.clientId, method: "password", ip: context.ip, userAgent: context.userAgent };
      if (verdict.account)
        await recordRefusedSignIn(deps, verdict.account.sub, signIn, now, "invalid_credential", verdict.limit);
      // An unknown login records no event (no account to file it under) but is the guess stuffing makes most.
      else countSignIn(deps, "password", "invalid_credential");
      return refused("invalid_credential", WRONG);
    },
  };
}
