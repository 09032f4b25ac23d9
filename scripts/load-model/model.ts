/**
 * The load model (docs/scale.md): monthly requests, cost, peak concurrency, DynamoDB request
 * units and partition heat for a workload. Pure functions only; scripts/load-model.ts reads
 * flags and files and prints.
 */

export interface Workload {
  monthlyActiveUsers: number;
  signInsPerUserPerMonth: number;
  clientCredentialsPerClientPerHour: number;
  clients: number;
  /** User-mode API calls (e.g. GET user) per sign-in. */
  apiReadsPerSignIn: number;
  refreshesPerUserPerMonth: number;
  peakToAverage: number;
}

/** What the hot-key rows assume beside the workload: attacks and a big group. */
export interface Scenario {
  /** A credential-stuffing wave: password guesses per second in all. */
  stuffingRps: number;
  /** Addresses a botnet spreads that wave over (one address: the single-address row). */
  botnetAddresses: number;
  groupMembers: number;
}

export const DEFAULT_WORKLOAD: Omit<Workload, "monthlyActiveUsers"> = {
  signInsPerUserPerMonth: 8,
  clientCredentialsPerClientPerHour: 60,
  clients: 20,
  apiReadsPerSignIn: 10,
  refreshesPerUserPerMonth: 30,
  peakToAverage: 5,
};

export const DEFAULT_SCENARIO: Scenario = { stuffingRps: 1000, botnetAddresses: 10_000, groupMembers: 1_000_000 };

export const SIZES = [10_000, 1_000_000, 100_000_000] as const;

export type RequestKind = "signIn" | "clientCredentials" | "apiRead" | "refresh";
export const KINDS: RequestKind[] = ["signIn", "clientCredentials", "apiRead", "refresh"];

export interface RequestCost {
  /** The route and mode, as the bench names them (docs/performance.md). */
  route: string;
  /** The endpoint group's function: requests of one function share its concurrency. */
  fn: string;
  rcu: number;
  wcu: number;
  billedMs: number;
  memoryMb: number;
  source: "derived" | "measured";
}

/**
 * Per-request figures derived from the code, not measured. Reads are consistent (1 RRU per
 * item up to 4 KB); a transactional write costs 2 WRU per item up to 1 KB, a plain one 1.
 * `memoryMb` comes from the stack (infra/sizing.ts) through `memory`.
 */
export function derivedCosts(memory: { hashing: number; plain: number }): Record<RequestKind, RequestCost> {
  return {
    signIn: {
      route: "token.issue, password grant",
      fn: "token",
      // lib/store/logins.ts snapshotPrefetch: one BatchGetItem of profile, credential, the account's two
      // failure counters, the e-mail's claim and the address's hour.
      rcu: 6,
      // takeAttempt: 3 transactional updates (6); the login's commit: session, device, security
      // event, the profile's login stamp (2 KB) and 3 give-backs, all transactional (16); the
      // stamp moves the account's GSI1 inactivity entry (2 index writes).
      wcu: 24,
      // One scrypt hash (N=2^17) takes about 360 ms of one vCPU (docs/performance.md), and the
      // token function has one vCPU (1,769 MB).
      billedMs: 420,
      memoryMb: memory.hashing,
      source: "derived",
    },
    clientCredentials: {
      route: "token.issue, client_credentials",
      fn: "token",
      // The client's record is kept per warm container (lib/domain/clients/credential-cache.ts):
      // no table call per grant; the cache's own reads are in the hot-key rows.
      rcu: 0,
      wcu: 0,
      billedMs: 10,
      memoryMb: memory.hashing,
      source: "derived",
    },
    apiRead: {
      route: "users.get, user",
      fn: "users",
      // Session and account in one BatchGetItem (session liveness), and the user-mode security
      // event's PutItem (docs/architecture.md, request path).
      rcu: 2,
      wcu: 1,
      billedMs: 20,
      memoryMb: memory.plain,
      source: "derived",
    },
    refresh: {
      route: "token.issue, refresh_token",
      fn: "token",
      // lib/domain/login/refresh-grant.ts: session and account read, then the session's
      // conditional UpdateItem (lib/store/sessions.ts rotateRefresh).
      rcu: 2,
      wcu: 1,
      billedMs: 15,
      memoryMb: memory.hashing,
      source: "derived",
    },
  };
}

/** Names under which a measured file (the bench's cost figures) may list each kind. */
export const MEASURED_NAMES: Record<RequestKind, string[]> = {
  signIn: ["signIn", "token.issue, password grant", "token.issue password", "token.issue, password"],
  clientCredentials: ["clientCredentials", "token.issue, client_credentials", "token.issue client_credentials"],
  apiRead: ["apiRead", "users.get, user", "users.get user"],
  refresh: ["refresh", "token.issue, refresh_token", "token.issue refresh_token"],
};

const normal = (name: string) =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9_.]+/g, " ")
    .trim();

/**
 * Replaces derived figures by measured ones where the file names the kind's route. Accepts
 * `{ "<route id>": {...} }` or `{ "routes": { ... } }`, each entry with rcu, wcu, billed ms warm
 * and memory MB (a few spellings, since the bench's file is still being written).
 */
export function applyMeasured(
  costs: Record<RequestKind, RequestCost>,
  file: unknown,
): { costs: Record<RequestKind, RequestCost>; used: string[] } {
  const root = (file ?? {}) as Record<string, unknown>;
  const entries = (typeof root.routes === "object" && root.routes !== null ? root.routes : root) as Record<
    string,
    Record<string, unknown>
  >;
  const byName = new Map(Object.entries(entries).map(([name, value]) => [normal(name), value]));
  const num = (entry: Record<string, unknown>, names: string[]) => {
    for (const name of names) if (typeof entry[name] === "number") return entry[name] as number;
    return undefined;
  };
  const used: string[] = [];
  const out = { ...costs };
  for (const kind of KINDS) {
    const entry = MEASURED_NAMES[kind].map((n) => byName.get(normal(n))).find((e) => e !== undefined);
    if (!entry) continue;
    const derived = costs[kind];
    out[kind] = {
      ...derived,
      rcu: num(entry, ["rcu", "rru"]) ?? derived.rcu,
      wcu: num(entry, ["wcu", "wru"]) ?? derived.wcu,
      billedMs: num(entry, ["billedMsWarm", "billed_ms_warm", "billedMs", "billed_ms"]) ?? derived.billedMs,
      memoryMb: num(entry, ["memoryMb", "memory_mb", "memoryMB"]) ?? derived.memoryMb,
      source: "measured",
    };
    used.push(kind);
  }
  return { costs: out, used };
}

/**
 * List prices, us-east-1, on-demand, arm64. Keep in step with the bench's price table
 * (scripts/bench/prices.ts) once both exist: that one is the one to update, and this copy goes.
 */
export const PRICES = {
  region: "us-east-1",
  dynamoDbPerMillionRru: 0.125,
  dynamoDbPerMillionWru: 0.625,
  lambdaArmPerGbSecond: 0.0000133334,
  lambdaPerMillionRequests: 0.2,
  /** HTTP API: the first 300 million requests a month, then the lower rate. */
  httpApiPerMillionFirst300M: 1.0,
  httpApiPerMillionAfter: 0.9,
} as const;

/** AWS quotas the model checks (documented defaults; docs/scale.md names their sources). */
export const AWS_LIMITS = {
  lambdaConcurrencyPerRegion: 1000,
  /** Each function may add 1,000 execution environments every 10 seconds. */
  lambdaScalingPer10s: 1000,
  httpApiAccountRps: 10_000,
  httpApiAccountBurst: 5000,
  partitionRcu: 3000,
  partitionWcu: 1000,
  /** On-demand table throughput quota per table, default. */
  tableRru: 40_000,
  tableWru: 40_000,
  transactItems: 100,
  /** Lambda synchronous response payload. */
  lambdaResponseBytes: 6 * 1024 * 1024,
} as const;

/** What the code's own settings put into the hot-key rows; the script reads them from lib/ and infra/. */
export interface CodeFacts {
  stageThrottle: { rateLimit: number; burstLimit: number };
  clientCacheSeconds: number;
  keyRingCacheSeconds: number;
  addressHourlyCap: number;
  inactivityShards: number;
  /** lib/domain/groups/group.ts MEMBERS_PER_PAGE. */
  membersPerPage: number;
  memory: { hashing: number; plain: number };
}

export const SECONDS_PER_MONTH = 730 * 3600;

export interface SizeResult {
  monthlyActiveUsers: number;
  monthly: Record<RequestKind, number>;
  peakRps: Record<RequestKind, number>;
  totalPeakRps: number;
  cost: { dynamoDb: number; lambda: number; apiGateway: number; total: number };
  concurrencyByFunction: Record<string, number>;
  peakConcurrency: number;
  peakRru: number;
  peakWru: number;
  hotKeys: HotKey[];
  quotas: Quota[];
}

export interface HotKey {
  key: string;
  route: string;
  /** Share of the route's requests that land on this one item or partition. */
  share: number;
  rcuPerSecond: number;
  wcuPerSecond: number;
  /** More than 10% of the route's requests on one item. */
  concentrated: boolean;
  overPartition: boolean;
  note: string;
}

export interface Quota {
  name: string;
  limit: number;
  value: number;
  exceeded: boolean;
}

export function monthlyRequests(w: Workload): Record<RequestKind, number> {
  const signIn = w.monthlyActiveUsers * w.signInsPerUserPerMonth;
  return {
    signIn,
    clientCredentials: w.clients * w.clientCredentialsPerClientPerHour * 730,
    apiRead: signIn * w.apiReadsPerSignIn,
    refresh: w.monthlyActiveUsers * w.refreshesPerUserPerMonth,
  };
}

export function peakRps(monthly: Record<RequestKind, number>, peakToAverage: number): Record<RequestKind, number> {
  const out = {} as Record<RequestKind, number>;
  for (const kind of KINDS) out[kind] = (monthly[kind] / SECONDS_PER_MONTH) * peakToAverage;
  return out;
}

export function httpApiCost(requests: number): number {
  const first = Math.min(requests, 300e6);
  return (first / 1e6) * PRICES.httpApiPerMillionFirst300M + ((requests - first) / 1e6) * PRICES.httpApiPerMillionAfter;
}

export function monthlyCost(monthly: Record<RequestKind, number>, costs: Record<RequestKind, RequestCost>) {
  let rru = 0;
  let wru = 0;
  let gbSeconds = 0;
  let requests = 0;
  for (const kind of KINDS) {
    const n = monthly[kind];
    const c = costs[kind];
    rru += n * c.rcu;
    wru += n * c.wcu;
    gbSeconds += n * (c.billedMs / 1000) * (c.memoryMb / 1024);
    requests += n;
  }
  const dynamoDb = (rru / 1e6) * PRICES.dynamoDbPerMillionRru + (wru / 1e6) * PRICES.dynamoDbPerMillionWru;
  const lambda = gbSeconds * PRICES.lambdaArmPerGbSecond + (requests / 1e6) * PRICES.lambdaPerMillionRequests;
  const apiGateway = httpApiCost(requests);
  return { dynamoDb, lambda, apiGateway, total: dynamoDb + lambda + apiGateway };
}

/** Little's law: requests in flight = arrival rate x time in the function. */
export function concurrency(rps: Record<RequestKind, number>, costs: Record<RequestKind, RequestCost>) {
  const byFunction: Record<string, number> = {};
  for (const kind of KINDS) {
    const fn = costs[kind].fn;
    byFunction[fn] = (byFunction[fn] ?? 0) + rps[kind] * (costs[kind].billedMs / 1000);
  }
  return byFunction;
}

function hotKey(
  row: Omit<HotKey, "concentrated" | "overPartition">,
  limits: { rcu: number; wcu: number } = { rcu: AWS_LIMITS.partitionRcu, wcu: AWS_LIMITS.partitionWcu },
): HotKey {
  return {
    ...row,
    concentrated: row.share > 0.1,
    overPartition: row.rcuPerSecond > limits.rcu || row.wcuPerSecond > limits.wcu,
  };
}

/**
 * The items and partitions on which many requests land, at the workload's peak. Each row says
 * where the code reads or writes it; "note" says what keeps it cool, or that nothing does yet.
 */
export function hotKeys(
  w: Workload,
  s: Scenario,
  rps: Record<RequestKind, number>,
  byFunction: Record<string, number>,
  facts: CodeFacts,
): HotKey[] {
  const totalContainers = Object.values(byFunction).reduce((a, b) => a + b, 0);
  const tokenContainers = byFunction.token ?? 0;
  const oneClientRps = rps.clientCredentials / Math.max(1, w.clients);
  // Every warm container reads the client at most once per cacheSeconds (credential-cache.ts);
  // no more often than the grants themselves.
  const cachedClientReads =
    facts.clientCacheSeconds > 0
      ? Math.min(oneClientRps, Math.max(1, tokenContainers) / facts.clientCacheSeconds)
      : oneClientRps;
  const perAddress = s.stuffingRps / Math.max(1, s.botnetAddresses);
  const relayedPerAddress = rps.signIn / Math.max(1, w.monthlyActiveUsers);
  // A member item holds the sub and a time, about 120 bytes; Query reads are billed per 4 KB.
  const memberBytes = 120;
  const listingRcu = Math.ceil((s.groupMembers * memberBytes) / 4096);
  const pages = Math.ceil(s.groupMembers / facts.membersPerPage);
  // A page's Query plus the head's GetItem (the last page's Query reads the head itself).
  const pageRcu = Math.ceil((Math.min(s.groupMembers, facts.membersPerPage) * memberBytes) / 4096) + 1;
  const oneUserRps = (rps.signIn + rps.apiRead + rps.refresh) / Math.max(1, w.monthlyActiveUsers);
  return [
    hotKey({
      key: "CLIENT#<id>",
      route: "token.issue, client_credentials (one application)",
      share: 1 / Math.max(1, w.clients),
      rcuPerSecond: cachedClientReads,
      wcuPerSecond: 0,
      note: `cached per warm container for clients.cacheSeconds (${facts.clientCacheSeconds} s): ${fmt(oneClientRps)} RCU/s uncached`,
    }),
    hotKey({
      key: "CLIENT#<web app>",
      route: "hosted.sign-in (one web application)",
      share: 1,
      // lib/domain/sign-in/authorization.ts loadRequest: the pages read the client through client authentication's cache.
      rcuPerSecond: cachedClientReads,
      wcuPerSecond: 0,
      note: `cached per warm container for clients.cacheSeconds (${facts.clientCacheSeconds} s), as for client authentication; ${fmt(rps.signIn)} RCU/s uncached`,
    }),
    hotKey({
      key: "SIGNING_KEYS",
      route: "every bearer route and token.issue",
      share: 1,
      // lib/tokens/key-ring.ts: one consistent Query (a few keys, under 4 KB) per container per CACHE_SECONDS.
      rcuPerSecond: Math.max(1, totalContainers) / facts.keyRingCacheSeconds,
      wcuPerSecond: 0,
      note: `key ring cached per container for ${facts.keyRingCacheSeconds} s; unknown kids reread at most every 5 s`,
    }),
    hotKey({
      key: "IPFAIL#<ip> HOUR#<h>, one address",
      route: "token.issue, password grant (stuffing wave)",
      share: s.stuffingRps / (s.stuffingRps + rps.signIn),
      // lib/store/logins.ts: every guess reads the address's hour; past IP_HOURLY_CAP it only reads.
      rcuPerSecond: s.stuffingRps,
      wcuPerSecond: Math.min(s.stuffingRps, facts.addressHourlyCap) * 2,
      note: `writes stop at ${facts.addressHourlyCap} failures an hour; the stage throttle (${facts.stageThrottle.rateLimit} rps) refuses the rest first`,
    }),
    hotKey({
      key: "IPFAIL#<ip> HOUR#<h>, botnet",
      route: "token.issue, password grant (stuffing wave)",
      share: perAddress / (s.stuffingRps + rps.signIn),
      rcuPerSecond: perAddress,
      wcuPerSecond: perAddress * 2,
      note: `${s.botnetAddresses} addresses: spread; the per-account counters then bound each account`,
    }),
    hotKey({
      key: "IPFAIL#<application server> HOUR#<h>",
      route: "token.issue, password grant (one back end, trustRelayedAddress)",
      share: 1 / Math.max(1, w.monthlyActiveUsers),
      // A trusted relay's own address is never counted (lib/routes/token.ts guessAddresses): each
      // user's relayed address takes and gives back its attempt (2 WRU each), one address per user.
      rcuPerSecond: relayedPerAddress,
      wcuPerSecond: relayedPerAddress * 4,
      note: "the back end's address is never written; each user's relayed address counts, spread like the botnet's",
    }),
    hotKey({
      key: "GSI1 INACTIVITY#<shard>",
      route: "token.issue, password grant",
      share: 1 / facts.inactivityShards,
      rcuPerSecond: 0,
      // lib/store/logins.ts: the login stamp moves the account's index entry (delete + put).
      wcuPerSecond: (rps.signIn * 2) / facts.inactivityShards,
      note: `${facts.inactivityShards} shards (lib/store/keys.ts gsi1.inactivity)`,
    }),
    hotKey({
      key: `GROUP#<profile>#<id>, ${fmt(s.groupMembers)} members`,
      route: "groups.members",
      share: 1,
      // lib/store/groups.ts members: one page of facts.membersPerPage members per call, consistent.
      rcuPerSecond: pageRcu,
      wcuPerSecond: 0,
      note: `at one page a second; a page is ${fmt(facts.membersPerPage)} members (about ${fmt((facts.membersPerPage * 40) / 1e3)} KB answered, ${fmt(pageRcu)} RCU); the whole list is ${fmt(pages)} pages, ${fmt(listingRcu)} RCU, so one partition serves about ${fmt(AWS_LIMITS.partitionRcu / pageRcu)} pages/s`,
    }),
    hotKey({
      key: "UNIQUE#email#<address>, one address attacked",
      route: "token.issue, password grant (stuffing wave)",
      share: s.stuffingRps / (s.stuffingRps + rps.signIn),
      // Read in the login's BatchGetItem when the username is an e-mail; written only with the account.
      rcuPerSecond: s.stuffingRps,
      wcuPerSecond: 0,
      note: "read only; the account's counters stop writes at 100 failures an hour",
    }),
    hotKey({
      key: "USER#<sub>, one user",
      route: "users.get, token.issue",
      share: 1 / Math.max(1, w.monthlyActiveUsers),
      rcuPerSecond: oneUserRps * 2,
      wcuPerSecond: oneUserRps,
      note: "one account's own calls; a shared account at 1,000 user-mode calls/s would reach the write limit (its security events)",
    }),
  ];
}

export function quotas(
  result: Pick<SizeResult, "totalPeakRps" | "peakConcurrency" | "peakRru" | "peakWru" | "hotKeys">,
  facts: CodeFacts,
): Quota[] {
  const q = (name: string, limit: number, value: number): Quota => ({ name, limit, value, exceeded: value > limit });
  // Only the workload's own partitions: the attack rows are refused by the stage throttle first.
  const workloadHot = result.hotKeys.filter((h) => !h.route.includes("stuffing") && !h.key.startsWith("GROUP#"));
  return [
    q("API Gateway stage throttle, requests/s (infra/sizing.ts)", facts.stageThrottle.rateLimit, result.totalPeakRps),
    q("API Gateway HTTP API account throttle, requests/s", AWS_LIMITS.httpApiAccountRps, result.totalPeakRps),
    q("Lambda concurrent executions per region", AWS_LIMITS.lambdaConcurrencyPerRegion, result.peakConcurrency),
    q("DynamoDB on-demand table read throughput, RRU/s", AWS_LIMITS.tableRru, result.peakRru),
    q("DynamoDB on-demand table write throughput, WRU/s", AWS_LIMITS.tableWru, result.peakWru),
    q(
      "DynamoDB partition reads, RCU/s (hottest workload key)",
      AWS_LIMITS.partitionRcu,
      Math.max(0, ...workloadHot.map((h) => h.rcuPerSecond)),
    ),
    q(
      "DynamoDB partition writes, WCU/s (hottest workload key)",
      AWS_LIMITS.partitionWcu,
      Math.max(0, ...workloadHot.map((h) => h.wcuPerSecond)),
    ),
  ];
}

export function modelSize(
  base: Workload,
  monthlyActiveUsers: number,
  costs: Record<RequestKind, RequestCost>,
  scenario: Scenario,
  facts: CodeFacts,
): SizeResult {
  const w = { ...base, monthlyActiveUsers };
  const monthly = monthlyRequests(w);
  const rps = peakRps(monthly, w.peakToAverage);
  const byFunction = concurrency(rps, costs);
  const sum = (kind: "rcu" | "wcu") => KINDS.reduce((total, k) => total + rps[k] * costs[k][kind], 0);
  const partial = {
    totalPeakRps: KINDS.reduce((total, k) => total + rps[k], 0),
    peakConcurrency: Object.values(byFunction).reduce((a, b) => a + b, 0),
    peakRru: sum("rcu"),
    peakWru: sum("wcu"),
    hotKeys: hotKeys(w, scenario, rps, byFunction, facts),
  };
  return {
    monthlyActiveUsers,
    monthly,
    peakRps: rps,
    cost: monthlyCost(monthly, costs),
    concurrencyByFunction: byFunction,
    ...partial,
    quotas: quotas(partial, facts),
  };
}

/** Rounded for tables: 3 significant digits below 1,000, thousands separators above. */
export function fmt(n: number): string {
  if (n === 0) return "0";
  if (Math.abs(n) >= 1000) return Math.round(n).toLocaleString("en-US");
  return Number(n.toPrecision(3)).toLocaleString("en-US", { maximumFractionDigits: 3 });
}
