/**
 * The load model (docs/scale.md): `npm run load-model -- [flags]`. Prints, for each size of
 * monthly active users, requests, cost, peak concurrency, DynamoDB units, hot keys and the
 * quotas reached. The computation is in scripts/load-model/model.ts.
 */
import { existsSync, readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { HASHING_MEMORY_MB, MEMORY_MB, THROTTLE } from "../infra/sizing";
import { parseSettings } from "../lib/config/validation";
import { MEMBERS_PER_PAGE } from "../lib/domain/groups/group";
import { BRUTE_FORCE } from "../lib/domain/login/brute-force";
import { ORG_MEMBERS_PER_PAGE } from "../lib/domain/organizations/organizations";
import { gsi1 } from "../lib/store/keys";
import { CACHE_SECONDS } from "../lib/tokens/key-ring";
import {
  applyMeasured,
  type CodeFacts,
  DEFAULT_SCENARIO,
  DEFAULT_WORKLOAD,
  derivedCosts,
  fmt,
  KINDS,
  modelSize,
  PRICES,
  type RequestKind,
  SIZES,
  type SizeResult,
  type Workload,
} from "./load-model/model";
import {
  type OrgFacts,
  type OrgScenario,
  organizationOperations,
  organizationPartition,
} from "./load-model/organization";

const DEFAULT_ORG: OrgScenario = { members: 100_000, joinsPerSecond: 0, pagesPerSecond: 1 };
const DEFAULT_ORG_ROLES = 1;
const ORG_FLAGS = {
  "org-members": "members",
  "org-joins-per-second": "joinsPerSecond",
  "org-pages-per-second": "pagesPerSecond",
} as const;

const USAGE = `npm run load-model -- [options]
  --users N[,N...]                  monthly active users (default ${SIZES.join(",")})
  --sign-ins-per-user N             per month (default ${DEFAULT_WORKLOAD.signInsPerUserPerMonth})
  --cc-per-client-per-hour N        client_credentials tokens (default ${DEFAULT_WORKLOAD.clientCredentialsPerClientPerHour})
  --clients N                       applications getting them (default ${DEFAULT_WORKLOAD.clients})
  --api-reads-per-sign-in N         user-mode calls such as GET user (default ${DEFAULT_WORKLOAD.apiReadsPerSignIn})
  --refreshes-per-user N            per month (default ${DEFAULT_WORKLOAD.refreshesPerUserPerMonth})
  --peak-to-average N               (default ${DEFAULT_WORKLOAD.peakToAverage})
  --stuffing-rps N                  a credential-stuffing wave (default ${DEFAULT_SCENARIO.stuffingRps})
  --botnet-addresses N              it spreads over (default ${DEFAULT_SCENARIO.botnetAddresses})
  --group-members N                 the big group (default ${DEFAULT_SCENARIO.groupMembers})
  --org-members N                   the big organization (default ${DEFAULT_ORG.members})
  --org-roles N                     roles each member holds (default ${DEFAULT_ORG_ROLES})
  --org-joins-per-second N          members joining it at the peak (default: all of them within an hour)
  --org-pages-per-second N          member pages listed (default ${DEFAULT_ORG.pagesPerSecond})
  --workload FILE                   JSON with any of the fields above in camelCase (flags win)
  --measured FILE                   per-route rcu, wcu, billed ms warm, memory MB (the bench's cost file)
  --json                            print the results as JSON`;

const NUMBER_FLAGS = {
  "sign-ins-per-user": "signInsPerUserPerMonth",
  "cc-per-client-per-hour": "clientCredentialsPerClientPerHour",
  clients: "clients",
  "api-reads-per-sign-in": "apiReadsPerSignIn",
  "refreshes-per-user": "refreshesPerUserPerMonth",
  "peak-to-average": "peakToAverage",
  "stuffing-rps": "stuffingRps",
  "botnet-addresses": "botnetAddresses",
  "group-members": "groupMembers",
} as const;

function number(flag: string, value: unknown): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new Error(`--${flag}: a number of 0 or more, not ${String(value)}`);
  return n;
}

function main(): void {
  const { values } = parseArgs({
    options: {
      users: { type: "string" },
      workload: { type: "string" },
      measured: { type: "string" },
      json: { type: "boolean" },
      help: { type: "boolean" },
      ...Object.fromEntries(
        [...Object.keys(NUMBER_FLAGS), ...Object.keys(ORG_FLAGS), "org-roles"].map((flag) => [
          flag,
          { type: "string" as const },
        ]),
      ),
    },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const fromFile = values.workload
    ? (JSON.parse(readFileSync(values.workload, "utf8")) as Record<string, unknown>)
    : {};
  const given: Record<string, number> = {};
  for (const [field, value] of Object.entries(fromFile)) if (typeof value === "number") given[field] = value;
  for (const [flag, field] of Object.entries(NUMBER_FLAGS)) {
    const value = (values as Record<string, unknown>)[flag];
    if (value !== undefined) given[field] = number(flag, value);
  }
  const workload: Workload = { ...DEFAULT_WORKLOAD, monthlyActiveUsers: 0, ...pick(given, DEFAULT_WORKLOAD) };
  const scenario = { ...DEFAULT_SCENARIO, ...pick(given, DEFAULT_SCENARIO) };
  const users = values.users
    ? values.users.split(",").map((u) => number("users", u))
    : Array.isArray(fromFile.monthlyActiveUsers)
      ? (fromFile.monthlyActiveUsers as number[])
      : typeof fromFile.monthlyActiveUsers === "number"
        ? [fromFile.monthlyActiveUsers]
        : [...SIZES];

  const facts: CodeFacts = {
    stageThrottle: THROTTLE,
    clientCacheSeconds: parseSettings({}).clients.cacheSeconds,
    keyRingCacheSeconds: CACHE_SECONDS,
    addressHourlyCap: BRUTE_FORCE.IP_HOURLY_CAP,
    inactivityShards: gsi1.inactivityShards,
    membersPerPage: MEMBERS_PER_PAGE,
    memory: { hashing: HASHING_MEMORY_MB, plain: MEMORY_MB },
  };
  let costs = derivedCosts(facts.memory);
  let measured: string[] = [];
  if (values.measured) {
    ({ costs, used: measured } = applyMeasured(costs, JSON.parse(readFileSync(values.measured, "utf8"))));
  }
  const results = users.map((n) => modelSize(workload, n, costs, scenario, facts));
  const org = organizationModel(values as Record<string, unknown>);
  if (values.json) {
    console.log(JSON.stringify({ workload, scenario, costs, prices: PRICES, results, organization: org }, null, 2));
    return;
  }
  print(workload, costs, results, measured, values.measured);
  printOrganization(org);
}

function organizationModel(values: Record<string, unknown>) {
  const scenario: OrgScenario = { ...DEFAULT_ORG };
  for (const [flag, field] of Object.entries(ORG_FLAGS)) {
    if (values[flag] !== undefined) scenario[field] = number(flag, values[flag]);
  }
  // The default wave: every member joins within one hour (a company moving in through SSO).
  if (values["org-joins-per-second"] === undefined) scenario.joinsPerSecond = scenario.members / 3600;
  const rolesPerMember =
    values["org-roles"] === undefined ? DEFAULT_ORG_ROLES : number("org-roles", values["org-roles"]);
  const facts: OrgFacts = { membersPerPage: ORG_MEMBERS_PER_PAGE, rolesPerMember };
  return {
    scenario,
    rolesPerMember,
    operations: organizationOperations(facts),
    partition: organizationPartition(facts, scenario),
  };
}

function printOrganization(org: ReturnType<typeof organizationModel>): void {
  const { scenario: s, partition: p } = org;
  console.log(
    `\nOne organization of ${fmt(s.members)} members, ${org.rolesPerMember} role(s) each (docs/organizations.md "Scale"):\n`,
  );
  console.log(
    "| operation | DynamoDB calls | RCU | WCU | RCU / WCU on GROUP#org#<id> | WCU on GROUPS#org |\n|---|---|---|---|---|---|",
  );
  for (const op of org.operations) {
    const own = `${fmt(op.orgPartitionRcu)} / ${fmt(op.orgPartitionWcu)}`;
    console.log(
      `| ${op.operation} | ${op.calls} | ${fmt(op.rcu)} | ${fmt(op.wcu)} | ${own} | ${fmt(op.profilePartitionWcu)} |`,
    );
  }
  console.log(
    `\nGROUP#org#<id> at ${fmt(s.joinsPerSecond)} joins/s and ${fmt(s.pagesPerSecond)} member page(s)/s: ` +
      `${fmt(p.rcuPerSecond)} RCU/s, ${fmt(p.wcuPerSecond)} WCU/s${p.overPartition ? " **over partition**" : " (under 3,000 / 1,000)"}; ` +
      `it takes ${fmt(p.maxJoinsPerSecond)} joins/s or ${fmt(p.maxPagesPerSecond)} pages/s before its limit. ` +
      `The whole member list: ${fmt(p.wholeListing.pages)} pages, ${fmt(p.wholeListing.rcu)} RCU. ` +
      `GROUPS#org takes ${fmt(p.maxChangesAcrossOrganizations)} member changes/s across all organizations.`,
  );
}

function pick<T extends object>(given: Record<string, number>, shape: T): Partial<T> {
  return Object.fromEntries(Object.entries(given).filter(([field]) => field in shape)) as Partial<T>;
}

const KIND_LABEL: Record<RequestKind, string> = {
  signIn: "sign-ins (password grant)",
  clientCredentials: "client_credentials",
  apiRead: "API reads (user mode)",
  refresh: "refreshes",
};

const money = (n: number) => `$${fmt(n)}`;
const size = (n: number) => (n >= 1e6 ? `${fmt(n / 1e6)}M` : `${fmt(n / 1e3)}k`);

function print(
  w: Workload,
  costs: ReturnType<typeof derivedCosts>,
  results: SizeResult[],
  measured: string[],
  measuredFile: string | undefined,
): void {
  const head = (cells: string[]) => `| ${cells.join(" | ")} |\n|${cells.map(() => "---").join("|")}|`;
  const row = (cells: string[]) => `| ${cells.join(" | ")} |`;
  const sizes = results.map((r) => size(r.monthlyActiveUsers));
  console.log(
    `Workload: ${w.signInsPerUserPerMonth} sign-ins and ${w.refreshesPerUserPerMonth} refreshes per user a month, ` +
      `${w.apiReadsPerSignIn} API reads per sign-in, ${w.clients} clients x ${w.clientCredentialsPerClientPerHour} ` +
      `client_credentials tokens an hour, peak ${w.peakToAverage}x average. Prices: list, ${PRICES.region}, arm64.`,
  );
  console.log(
    measuredFile
      ? `Per-request figures: measured (${measuredFile}) for ${measured.join(", ") || "none"}; the rest derived from the code.`
      : "Per-request figures: derived from the code, not measured (--measured FILE takes the bench's).",
  );
  if (!measuredFile && existsSync(".local/bench/cost.json")) {
    console.log("(.local/bench/cost.json exists: --measured .local/bench/cost.json uses it)");
  }
  console.log(`\n${head(["request", "route", "RCU", "WCU", "billed ms", "MB", "source"])}`);
  for (const k of KINDS) {
    const c = costs[k];
    console.log(row([KIND_LABEL[k], c.route, fmt(c.rcu), fmt(c.wcu), fmt(c.billedMs), fmt(c.memoryMb), c.source]));
  }

  console.log(`\n${head(["monthly active users", ...sizes])}`);
  for (const k of KINDS) console.log(row([`${KIND_LABEL[k]} / month`, ...results.map((r) => fmt(r.monthly[k]))]));
  console.log(row(["DynamoDB / month", ...results.map((r) => money(r.cost.dynamoDb))]));
  console.log(row(["Lambda / month", ...results.map((r) => money(r.cost.lambda))]));
  console.log(row(["API Gateway / month", ...results.map((r) => money(r.cost.apiGateway))]));
  console.log(row(["**total / month**", ...results.map((r) => `**${money(r.cost.total)}**`)]));
  console.log(row(["peak requests/s", ...results.map((r) => fmt(r.totalPeakRps))]));
  console.log(row(["peak Lambda concurrency", ...results.map((r) => fmt(r.peakConcurrency))]));
  console.log(
    row([
      "of which token / users",
      ...results.map((r) => `${fmt(r.concurrencyByFunction.token ?? 0)} / ${fmt(r.concurrencyByFunction.users ?? 0)}`),
    ]),
  );
  console.log(row(["peak DynamoDB RRU/s", ...results.map((r) => fmt(r.peakRru))]));
  console.log(row(["peak DynamoDB WRU/s", ...results.map((r) => fmt(r.peakWru))]));

  for (const r of results) {
    console.log(`\nHot keys at ${size(r.monthlyActiveUsers)} users (peak; 3,000 RCU / 1,000 WCU per partition):\n`);
    console.log(head(["key", "route", "share", "RCU/s", "WCU/s", "", "note"]));
    for (const h of r.hotKeys) {
      const flags = [h.concentrated ? ">10% of route" : "", h.overPartition ? "**over partition**" : ""]
        .filter(Boolean)
        .join(", ");
      const share = h.share >= 0.001 ? `${fmt(h.share * 100)}%` : "<0.1%";
      console.log(row([h.key, h.route, share, fmt(h.rcuPerSecond), fmt(h.wcuPerSecond), flags, h.note]));
    }
    const hit = r.quotas.filter((q) => q.exceeded);
    console.log(
      `\nQuotas reached at ${size(r.monthlyActiveUsers)}: ${
        hit.length === 0 ? "none" : hit.map((q) => `${q.name}: ${fmt(q.value)} > ${fmt(q.limit)}`).join("; ")
      }`,
    );
  }
}

try {
  main();
} catch (error) {
  console.error((error as Error).message);
  console.error(USAGE);
  process.exitCode = 2;
}
