import type { Account } from "../../accounts/account";
import type { AccountRepository } from "../../accounts/ports";
import { secretMatches } from "../../credentials/secret-digest";
import type { BindDeps, ProviderAnswer } from "../../federation/bind";
import { completeFederatedSignIn } from "../../federation/federated-sign-in";
import type { BindState } from "../../federation/records";
import type { QrLoginRepository } from "../../login/ports";
import type { MetricsPort } from "../../metrics";
import { HOSTED_CLIENT } from "../../oidc/browser-session";
import { completeOrgSso, type SsoSignInDeps } from "../../organizations/sso-sign-in";
import type { PendingWrite } from "../../unit-of-work";
import { type Proved, type Refused, refused, type SignInMethod } from "../method";
import { countSignIn } from "../refusals";

/** The account another party vouched for, as a proof (no password, no attempt to give back). */
function vouched(account: Account, method: string, amr: string[], items: PendingWrite[] = []): Proved {
  const secondFactor = method === "federated" ? "refuse" : "done";
  return { kind: "proved", account, method, amr, secondFactor, items, failuresOnRecord: false };
}

type Accounts = { accounts: Pick<AccountRepository, "get">; metrics?: MetricsPort };

async function accountOf(deps: Accounts, sub: string, method: string, amr: string[], items?: PendingWrite[]) {
  const account = await deps.accounts.get(sub);
  if (account) return vouched(account, method, amr, items);
  countSignIn(deps, method, "unknown_account");
  return refused("unknown_account", "the account does not exist");
}

/** The provider's answer, once this browser's state was taken. */
export interface FederatedInput {
  state: BindState;
  answer: ProviderAnswer;
}

/**
 * "Sign in with <provider>": the external account linked to an account (interface §4.9)
 * signs that account in. The provider vouches for one factor, so an account that requires
 * two is refused (it signs in with its password and code).
 */
export function federatedMethod(
  deps: Pick<BindDeps, "providers" | "federation" | "log"> & Accounts,
): SignInMethod<FederatedInput> {
  return {
    name: "federated",
    amr: ["fed"],
    secondFactor: "refuse",
    async authenticate(input, context): Promise<Proved | Refused> {
      const outcome = await completeFederatedSignIn(deps, input.state, input.answer, context.now);
      if (!outcome.ok) return refused(outcome.problem, `the provider did not sign anyone in (${outcome.problem})`);
      return accountOf(deps, outcome.sub, "federated", ["fed"]);
    },
  };
}

/**
 * An organization's own provider (docs/organizations.md): the linked account, or one created
 * just in time, a member of the organization. One factor, vouched for by the provider.
 */
export function orgSsoMethod(deps: SsoSignInDeps & Accounts): SignInMethod<FederatedInput> {
  return {
    name: "org_sso",
    amr: ["fed"],
    secondFactor: "refuse",
    async authenticate(input, context): Promise<Proved | Refused> {
      const outcome = await completeOrgSso(deps, input.state, input.answer, context.now);
      if (!outcome.ok) {
        countSignIn(deps, "org_sso", outcome.problem);
        return refused(outcome.problem, `the organization's provider did not sign anyone in (${outcome.problem})`);
      }
      const proof = await accountOf(deps, outcome.sub, "org_sso", ["fed"]);
      return proof.kind === "proved" ? { ...proof, orgId: outcome.orgId } : proof;
    },
  };
}

/**
 * "Sign in with your phone": a code the user's signed-in phone confirmed. It belongs to the
 * hosted pages and to the browser that showed it (`binding`, its CSRF token), and is
 * redeemed in the login's commit, so it signs in that one browser once.
 */
export function qrMethod(
  deps: { qrLogins: QrLoginRepository } & Accounts,
): SignInMethod<{ code: string; binding: string }> {
  return {
    name: "qr",
    amr: ["qr"],
    secondFactor: "done",
    async authenticate(input, context): Promise<Proved | Refused> {
      const found = input.code ? await deps.qrLogins.get(input.code, context.now) : undefined;
      // Another browser learns nothing of the code, not even whether the phone decided.
      const ours = found?.clientId === HOSTED_CLIENT && secretMatches(input.binding, found.browserBinding);
      if (!found || !ours || found.status === "used") return refused("qr_expired", "the code expired");
      if (found.status === "refused") return refused("qr_refused", "the code was refused");
      if (found.status === "pending" || !found.sub) return refused("qr_pending", "the code waits for the phone");
      const redeem = deps.qrLogins.redeemItem(input.code, HOSTED_CLIENT, context.now);
      return accountOf(deps, found.sub, "qr", ["qr"], [redeem]);
    },
  };
}
