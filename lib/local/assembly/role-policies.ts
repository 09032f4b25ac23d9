import { runSimulation } from "@cloud-copilot/iam-simulate";
import type { IamCheck } from "./aws-calls";
import type { PolicyDocument } from "./cloud-assembly";
import { LOCAL_ACCOUNT_ID } from "./local-world";

/**
 * A function's role as IAM evaluates it: every call is put to a real policy simulator
 * (@cloud-copilot/iam-simulate) with the role's identity policies from the template, and
 * what was allowed is kept, so the run can say which granted permissions no call used.
 */

export type Decision = "Allowed" | "ImplicitlyDenied" | "ExplicitlyDenied";

export interface Denial extends IamCheck {
  functionId: string;
  decision: Decision | "invalid";
  detail?: string;
}

/** One statement's action and resource pattern, as granted. */
export interface Grant {
  action: string;
  resource: string;
}

export interface RolePolicies {
  check(check: IamCheck): Promise<{ decision: Decision | "invalid"; detail?: string }>;
  /** Each Allow statement's actions and resources, as written, for the report. */
  grants(): Grant[];
}

function asList(value: unknown): string[] {
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).map(String);
}

/** IAM's glob: `*` any run of characters, `?` one; case-insensitive for actions. */
export function globMatches(pattern: string, value: string, ignoreCase = false): boolean {
  const source = pattern
    .replace(/[.+^${}()|[\]\\]/g, "\\$&")
    .replace(/\*/g, ".*")
    .replace(/\?/g, ".");
  return new RegExp(`^${source}$`, ignoreCase ? "i" : "").test(value);
}

export function rolePolicies(roleId: string, documents: PolicyDocument[]): RolePolicies {
  const cache = new Map<string, Promise<{ decision: Decision | "invalid"; detail?: string }>>();
  const identityPolicies = documents.map((policy, i) => ({ name: `${roleId}-${i}`, policy }));
  const grants: Grant[] = documents.flatMap((document) =>
    document.Statement.filter((s) => s.Effect === "Allow").flatMap((s) =>
      asList(s.Action).flatMap((action) => asList(s.Resource).map((resource) => ({ action, resource }))),
    ),
  );

  async function simulate(check: IamCheck): Promise<{ decision: Decision | "invalid"; detail?: string }> {
    const response = await runSimulation(
      {
        identityPolicies,
        serviceControlPolicies: [],
        resourceControlPolicies: [],
        request: {
          action: check.action,
          principal: `arn:aws:sts::${LOCAL_ACCOUNT_ID}:assumed-role/${roleId}/local`,
          resource: { accountId: LOCAL_ACCOUNT_ID, resource: check.resource },
          contextVariables: check.context,
        },
      },
      {},
    );
    if (response.resultType === "error") return { decision: "invalid", detail: JSON.stringify(response.errors) };
    return { decision: response.overallResult as Decision };
  }

  return {
    check(check) {
      const key = JSON.stringify(check);
      let decision = cache.get(key);
      if (!decision) {
        decision = simulate(check);
        cache.set(key, decision);
      }
      return decision;
    },
    grants: () => grants,
  };
}
