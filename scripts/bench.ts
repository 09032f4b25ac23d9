import { spawnSync } from "node:child_process";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { availableParallelism } from "node:os";
import {
  COLD_START_ROUNDS,
  type ColdStart,
  coldStartNodeVersion,
  coldStartTable,
  measureColdStarts,
} from "./bench/cold-start";
import { COST_RUNS, measureCostFlows } from "./bench/cost-flows";
import {
  COST_FILE,
  cognitoLines,
  costReport,
  flowCostTable,
  routeCostTable,
  writeCostReport,
} from "./bench/cost-report";
import { HOSTED_BENCH_CLIENT, hostedSignInFlow } from "./bench/hosted-sign-in";
import { BENCH_CLIENT, startLocalStack } from "./bench/local-stack";
import { PRICES } from "./bench/prices";
import { printTable } from "./bench/print-table";
import { benchReliability } from "./bench/reliability";
import {
  measureRoundTrips,
  type RoundTripRow,
  roundTripTable,
  seedSampleAccounts,
  seedSampleDevices,
} from "./bench/round-trips";
import { startSampleProvider } from "./bench/sample-provider";
import { compareScrypt, oneHashMs } from "./bench/scrypt";
import {
  type Compared,
  type Flow,
  type LoadSettings,
  type Measured,
  measure,
  measureFlow,
  type Scenario,
  type ServerProcess,
  startServerProcess,
  throughputTable,
} from "./bench/throughput";
import { warmDynamoLocal } from "./bench/warm-dynamodb";

/**
 * `npm run bench`: round trips per route, throughput and latency beside a raw GetItem
 * floor, on a stack of its own on loopback (DynamoDB Local in memory, the local gateway).
 * With BENCH_BASE_URL (a deployed stage), BENCH_CLIENT_ID and BENCH_CLIENT_SECRET it only
 * measures the throughput of that stage (client_credentials, and GET user when BENCH_USER_SUB is set).
 */

/**
 * BENCH_ONLY=throughput, cold-start, cost or reliability (comma-separated): those parts only
 * (the round trips always run: the others use their samples). `sign-in` is the part of the
 * throughput judged by the hash-only server: the password grant and the hosted sign-in.
 * The cost part prices cold starts only when cold-start runs too.
 */
const only = process.env.BENCH_ONLY?.split(",") ?? [];
const part = (name: "throughput" | "sign-in" | "cold-start" | "cost" | "reliability") =>
  only.length === 0 || only.includes(name);

const load: LoadSettings = {
  connections: Number(process.env.BENCH_CONNECTIONS ?? 10),
  seconds: Math.min(Number(process.env.BENCH_SECONDS ?? 5), 60),
};

/** The throughput account's password, hashed with the production scrypt parameters. */
const BENCH_PASSWORD = "Bench-Password-2026-correct-horse";

function basic(id: string, secret: string): string {
  return `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString("base64")}`;
}

const FORM = "application/x-www-form-urlencoded";

async function tokenFrom(base: string, authorization: string, body: string) {
  const response = await fetch(`${base}/svc/oauth/te`, {
    method: "POST",
    headers: { authorization, "content-type": FORM },
    body,
  });
  const json = (await response.json()) as { access_token?: string; refresh_token?: string };
  if (!response.ok || !json.access_token)
    throw new Error(`token request failed: ${response.status} ${JSON.stringify(json)}`);
  return { ...json, access_token: json.access_token };
}

function listen(server: Server): Promise<string> {
  return new Promise((done) =>
    server.listen(0, "127.0.0.1", () => done(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );
}

async function runScenarios(scenarios: Scenario[]): Promise<Measured[]> {
  const measured: Measured[] = [];
  for (const scenario of scenarios) {
    process.stderr.write(`  ${scenario.name} ...\n`);
    measured.push(await measure(scenario, load));
  }
  return measured;
}

async function benchDeployedStage(base: string): Promise<void> {
  const id = process.env.BENCH_CLIENT_ID;
  const secret = process.env.BENCH_CLIENT_SECRET;
  if (!id || !secret) throw new Error("BENCH_BASE_URL needs BENCH_CLIENT_ID and BENCH_CLIENT_SECRET");
  const clientBasic = basic(id, secret);
  const scenarios: Scenario[] = [
    {
      name: "client_credentials grant",
      url: `${base}/svc/oauth/te`,
      method: "POST",
      headers: { authorization: clientBasic, "content-type": FORM },
      body: "grant_type=client_credentials",
    },
  ];
  const sub = process.env.BENCH_USER_SUB;
  if (sub) {
    const { access_token } = await tokenFrom(
      base,
      clientBasic,
      "grant_type=client_credentials&scope=svc_api_sys_users",
    );
    scenarios.push({
      name: "GET user, system mode",
      url: `${base}/svc/api/v3/users/${encodeURIComponent(sub)}`,
      method: "GET",
      headers: { authorization: `Bearer ${access_token}` },
    });
  }
  console.log(`\nThroughput of ${base} (${load.connections} connections, ${load.seconds} s each)`);
  const rows = await runScenarios(scenarios);
  printTable([
    ["scenario", "req/s", "p50 ms", "p99 ms", "2xx", "failed"],
    ...rows.map((r) => [
      r.name,
      r.requestsPerSecond.toFixed(0),
      String(r.p50),
      String(r.p99),
      String(r.ok),
      String(r.failed),
    ]),
  ]);
}

/**
 * The accounts the password grant signs in, in turn: logins of one account at once all
 * write its profile and would measure transaction conflicts rather than the grant.
 */
function loginAccounts(): { sub: string; email: string }[] {
  return Array.from({ length: 20 }, (_, i) => ({ sub: `bench-login-${i}`, email: `bench-login-${i}@example.com` }));
}

interface Stoppable {
  stop(): void;
}

interface Credentials {
  clientBasic: string;
  systemToken: string;
  userToken: string;
  /** The user token's session, which the session-check reference reads. */
  userSession: { sub: string; sid: string };
}

/** Rounds of each reference-then-scenario pair in the throughput part. */
const PAIRED_ROUNDS = 3;

interface Run {
  scenario: Scenario;
  server: ServerProcess;
  /** Seconds under load, when not the configured ones (scrypt needs longer). */
  seconds?: number;
  /** Units of several requests, measured in place of `scenario` (which then only names them). */
  flow?: Flow<unknown>;
}

function measureRun(run: Run, settings: LoadSettings): Promise<Measured> {
  return run.flow ? measureFlow(run.flow, settings, run.server) : measure(run.scenario, settings, run.server);
}

/**
 * Every scenario against a server in a process of its own (autocannon keeps this one),
 * each beside the reference it is judged by, measured in the same run on the same cores.
 */
async function measureThroughput(credentials: Credentials, servers: Stoppable[]): Promise<void> {
  const { sub, sid } = credentials.userSession;
  const started = await Promise.all([
    startServerProcess("gateway"),
    startServerProcess("getitem-floor"),
    startServerProcess("scrypt-floor"),
    startServerProcess("oidc-provider"),
    startServerProcess("session-floor", { args: [sub, sid] }),
    // The same gateway without metrics, for what metrics cost per request.
    startServerProcess("gateway", { env: { POWERTOOLS_METRICS_DISABLED: "true" } }),
  ]);
  servers.push(...started);
  const [gateway, getItemFloor, scryptFloor, oidcProvider, sessionFloor, gatewayNoMetrics] = started;
  const { REFERENCE_CLIENT, REFERENCE_SCOPE } = await import("./bench/oidc-reference");
  const clientCredentials = (url: string, authorization: string, scope: string): Scenario => ({
    name: "",
    url,
    method: "POST",
    headers: { authorization, "content-type": FORM },
    body: `grant_type=client_credentials&scope=${scope}`,
  });
  const userPath = `${gateway.url}/svc/api/v3/users/bench-user`;
  const getItem: Run = {
    server: getItemFloor,
    scenario: { name: "raw GetItem (reference)", url: `${getItemFloor.url}/`, method: "GET", headers: {} },
  };
  const oidc: Run = {
    server: oidcProvider,
    scenario: {
      ...clientCredentials(
        `${oidcProvider.url}/token`,
        basic(REFERENCE_CLIENT.id, REFERENCE_CLIENT.secret),
        REFERENCE_SCOPE,
      ),
      name: "node-oidc-provider client_credentials (reference)",
    },
  };
  const grant: Run = {
    server: gateway,
    scenario: {
      ...clientCredentials(`${gateway.url}/svc/oauth/te`, credentials.clientBasic, "svc_api_sys_users"),
      name: "client_credentials grant",
    },
  };
  const grantNoMetrics: Run = {
    server: gatewayNoMetrics,
    scenario: {
      ...clientCredentials(`${gatewayNoMetrics.url}/svc/oauth/te`, credentials.clientBasic, "svc_api_sys_users"),
      name: "client_credentials grant, metrics off (reference)",
    },
  };
  const sessionCheck: Run = {
    server: sessionFloor,
    scenario: {
      name: "raw session check + event write (reference)",
      url: `${sessionFloor.url}/`,
      method: "GET",
      headers: {},
    },
  };
  const systemGet: Run = {
    server: gateway,
    scenario: {
      name: "GET user, system mode",
      url: userPath,
      method: "GET",
      headers: { authorization: `Bearer ${credentials.systemToken}` },
    },
  };
  const userGet: Run = {
    server: gateway,
    scenario: {
      name: "GET user, user mode",
      url: userPath,
      method: "GET",
      headers: {
        authorization: `Bearer ${credentials.userToken}`,
        "x-forwarded-for": "203.0.113.10",
        "user-agent": "svc-bench",
      },
    },
  };
  // One scrypt N=2^17 hash is ~0.5 s of CPU: a short run would end before the first answers.
  const scryptSeconds = Math.max(load.seconds, 20);
  const scryptOnly: Run = {
    server: scryptFloor,
    seconds: scryptSeconds,
    scenario: { name: "scrypt hash only (reference)", url: `${scryptFloor.url}/`, method: "GET", headers: {} },
  };
  const passwordGrantRun: Run = {
    server: gateway,
    seconds: scryptSeconds,
    scenario: {
      name: "password grant (scrypt N=2^17)",
      url: `${gateway.url}/svc/oauth/te`,
      method: "POST",
      headers: { authorization: credentials.clientBasic, "content-type": FORM },
      bodies: loginAccounts().map(
        ({ email }) =>
          `grant_type=password&username=${encodeURIComponent(email)}&password=${encodeURIComponent(BENCH_PASSWORD)}&scope=svc_api_user`,
      ),
    },
  };
  const signInFlow = hostedSignInFlow(
    gateway.url,
    loginAccounts().map(({ email }) => email),
    BENCH_PASSWORD,
  );
  const hostedSignIn: Run = {
    server: gateway,
    seconds: scryptSeconds,
    scenario: { name: signInFlow.name, url: `${gateway.url}/svc/oauth/signin`, method: "POST", headers: {} },
    flow: signInFlow as Flow<unknown>,
  };
  // BENCH_ONLY=sign-in: only what the hash-only server judges.
  const everything = part("throughput");
  const all = everything
    ? [
        getItem,
        oidc,
        grant,
        grantNoMetrics,
        systemGet,
        sessionCheck,
        userGet,
        scryptOnly,
        passwordGrantRun,
        hostedSignIn,
      ]
    : [scryptOnly, passwordGrantRun, hostedSignIn];
  // DynamoDB Local's JVM needs several seconds of load before it answers at full speed.
  await measure(getItem.scenario, { ...load, seconds: 8 }, getItem.server);
  // Each scenario gets an unreported run first (JIT, key loading, the login path's first
  // compiles); measure() waits after every run until its server has finished what was in flight.
  for (const run of all) await measureRun(run, { ...load, seconds: 2 });
  console.log(
    `\nThroughput on loopback (${load.connections} connections, ${load.seconds} s each, ${scryptSeconds} s for scrypt; ` +
      `${PAIRED_ROUNDS} rounds of reference then scenario, the round with the median ratio shown; ` +
      "autocannon in the bench process, each server in its own; a hosted sign-in is two requests, counted as one)",
  );
  const pairedRun = (run: Run) => ({ ...load, seconds: run.seconds ?? load.seconds });
  /**
   * The reference and the scenario judged by it, one after the other, PAIRED_ROUNDS times:
   * on a shared machine a busy minute then moves both sides of a ratio. The round with the
   * median ratio is the one reported.
   */
  const paired = async (reference: Run, subject: Run) => {
    const rounds: { reference: Measured; measured: Measured }[] = [];
    for (let round = 0; round < PAIRED_ROUNDS; round += 1) {
      process.stderr.write(`  ${reference.scenario.name} / ${subject.scenario.name}, round ${round + 1} ...\n`);
      const referenceRun = await measureRun(reference, pairedRun(reference));
      rounds.push({ reference: referenceRun, measured: await measureRun(subject, pairedRun(subject)) });
    }
    const ratio = (r: (typeof rounds)[number]) => r.measured.requestsPerSecond / r.reference.requestsPerSecond;
    return [...rounds].sort((a, b) => ratio(a) - ratio(b))[Math.floor(rounds.length / 2)];
  };
  const rows: Compared[] = [];
  let metricsCost: { on: number; off: number } | undefined;
  if (everything) {
    const grants = await paired(oidc, grant);
    const withoutMetrics = await paired(grantNoMetrics, grant);
    const systemGets = await paired(getItem, systemGet);
    const userGets = await paired(sessionCheck, userGet);
    rows.push(
      { measured: systemGets.reference },
      { measured: grants.reference },
      { measured: grants.measured, reference: grants.reference, minRatio: 1.2, minPerSecond: 1000 },
      { measured: systemGets.measured, reference: systemGets.reference, minRatio: 0.85 },
      { measured: userGets.reference },
      { measured: userGets.measured, reference: userGets.reference, minRatio: 0.8 },
    );
    metricsCost = {
      on: withoutMetrics.measured.cpuMsPerRequest,
      off: withoutMetrics.reference.cpuMsPerRequest,
    };
  }
  // Each scrypt-bound scenario beside the hash-only server of its own rounds.
  const logins = await paired(scryptOnly, passwordGrantRun);
  const signIns = await paired(scryptOnly, hostedSignIn);
  rows.push(
    { measured: logins.reference },
    { measured: logins.measured, reference: logins.reference, minRatio: 0.9 },
    { measured: signIns.reference },
    { measured: signIns.measured, reference: signIns.reference, minRatio: 0.9 },
  );
  printTable(throughputTable(rows));
  if (metricsCost) {
    const cost = metricsCost.on - metricsCost.off;
    console.log(
      `metrics: ${cost.toFixed(3)} ms of the server's CPU per client_credentials request ` +
        `(${metricsCost.on.toFixed(3)} with EMF lines, ${metricsCost.off.toFixed(3)} without; target under 0.1: ${cost < 0.1 ? "met" : "NOT MET"})`,
    );
  }
  const hashMs = await oneHashMs();
  const cores = availableParallelism();
  const perCore = (m: Measured) => ((m.requestsPerSecond * hashMs) / 1000 / cores).toFixed(2);
  for (const [label, { measured, reference }] of [
    ["password grant", logins],
    ["hosted sign-in", signIns],
  ] as const) {
    console.log(
      `${label}: ${measured.requestsPerSecond.toFixed(2)}/s x ${hashMs.toFixed(0)} ms per hash = ` +
        `${perCore(measured)} per core on ${cores} cores (the hash-only server: ${perCore(reference)} per core)`,
    );
    // DynamoDB Local shares these cores; on AWS its work is not ours. Our own process's CPU
    // per unit against the hash-only server's per hash says what the flow adds to the hash.
    console.log(
      `${label}: ${measured.cpuMsPerRequest.toFixed(0)} ms of the server's CPU each, ` +
        `${reference.cpuMsPerRequest.toFixed(0)} ms per hash-only request ` +
        `(hash-only / ${label} ${(reference.cpuMsPerRequest / measured.cpuMsPerRequest).toFixed(2)}; a hash's CPU time grows when both cores are busy)`,
    );
  }
}

/**
 * Enough for DynamoDB Local's JIT: a three-item TransactWriteItems answered in 24 ms fresh,
 * 16 after 50 runs, 5 after 200 and 4 after 1,000 (2026-11-22). About 20 s.
 */
const DYNAMODB_WARM_ROUNDS = 1000;

async function benchColdStarts(rows: RoundTripRow[], values: Record<string, string>): Promise<ColdStart[]> {
  process.stderr.write("cold starts: npm run build, then a fresh node process per bundle\n");
  const build = spawnSync("npm", ["run", "--silent", "build"], { stdio: ["ignore", "ignore", "inherit"] });
  if (build.status !== 0) throw new Error("npm run build failed");
  process.stderr.write(`cold starts: warming DynamoDB Local (${DYNAMODB_WARM_ROUNDS} rounds of each operation)\n`);
  const { documentClient } = await import("../lib/document-client");
  const { config } = await import("../lib/config");
  const warmth = await warmDynamoLocal(documentClient(), config().tableName, DYNAMODB_WARM_ROUNDS);
  console.log(
    `\nDynamoDB Local warmed first (${DYNAMODB_WARM_ROUNDS} rounds of every operation the store sends; DynamoDB itself has no such warm-up), ms per call:`,
  );
  printTable([
    ["operation", "first runs", "last runs"],
    ...warmth.map((w) => [w.operation, w.freshMs.toFixed(1), w.warmMs.toFixed(1)]),
  ]);
  console.log(
    `\nCold start: fresh node ${coldStartNodeVersion()} process imports the bundle and answers one event (medians of ${COLD_START_ROUNDS} rounds; each run between two floor runs, against their mean; quartiles: of the judged ratios)`,
  );
  const coldStarts = await measureColdStarts(rows, values);
  printTable(coldStartTable(coldStarts));
  console.log("");
  printTable(await compareScrypt());
  return coldStarts;
}

/** Cost per request: the sweep's rows and the measured flows priced, beside Cognito. */
async function benchCost(
  rows: RoundTripRow[],
  settings: Parameters<typeof measureCostFlows>[0],
  coldStarts: ColdStart[],
): Promise<void> {
  process.stderr.write(`cost: each priced flow ${COST_RUNS} times against the counting gateway\n`);
  const report = costReport(rows, await measureCostFlows(settings), PRICES, coldStarts);
  writeCostReport(report);
  const caveat =
    "handler time on this machine (Node 20, x64, shared cores) stands in for Lambda's (nodejs22.x, arm64): a proxy, not Lambda's figure";
  console.log(
    `\nCost per request, ${PRICES.region} on-demand list prices (scripts/bench/prices.ts, ${PRICES.readOn}); ` +
      `DynamoDB units as DynamoDB Local reports them, a transaction's writes billed twice; ${caveat}. Written to ${COST_FILE}.`,
  );
  console.log(
    "\nEvery route (the round-trip sweep's worst successful sample, one run, so the handler time includes first calls):",
  );
  printTable(routeCostTable(report));
  console.log(
    `\nPriced flows (warm functions, medians of ${COST_RUNS} runs; billed ms rounded up to 1 ms; cold: every request a cold start, ` +
      "its bundle's import time from the cold-start part billed as well, as Lambda bills the init phase; the first answer's own extra time left out):",
  );
  printTable(flowCostTable(report));
  console.log("");
  for (const line of cognitoLines(report, PRICES)) console.log(line);
}

async function benchLocalStack(): Promise<void> {
  process.stderr.write("starting DynamoDB Local (in memory) and the gateway on loopback\n");
  // The federation samples' provider, so the sweep can bring bind and callback to an answer.
  const provider = await startSampleProvider();
  const dynamo = await startLocalStack(provider.settings);
  const { createGateway } = await import("../lib/local/gateway");
  const { services } = await import("../lib/container");
  const { DEFAULT_SCRYPT, hashPassword } = await import("../lib/domain/credentials/password-hash");
  const { mintUserToken } = await import("../lib/local/user-token");
  const { registerClient } = await import("../lib/domain/clients/admin");
  const { config } = await import("../lib/config");
  const counting = createGateway({ countRoundTrips: true });
  const plain = createGateway();
  const servers: Stoppable[] = [counting, plain].map((server) => ({
    stop: () => {
      server.close();
      server.closeAllConnections();
    },
  }));
  try {
    const countingBase = await listen(counting);
    const base = await listen(plain);
    const now = Math.floor(Date.now() / 1000);
    const hash = await hashPassword(BENCH_PASSWORD, DEFAULT_SCRYPT);
    // One account kept apart for throughput; the sample events' accounts come with the round-trip sweep.
    await services().accounts.create(
      {
        sub: "bench-user",
        family_name: "Bench",
        given_name: "Bench",
        locked: false,
        email: { value: "bench@example.com", verified: true },
        createdAt: now,
        updatedAt: now,
      },
      hash,
    );
    for (const { sub, email } of loginAccounts()) {
      await services().accounts.create(
        {
          sub,
          family_name: "Bench",
          given_name: "Login",
          locked: false,
          email: { value: email, verified: true },
          createdAt: now,
          updatedAt: now,
        },
        hash,
      );
    }
    // The application the hosted sign-in scenario signs those accounts in to.
    await registerClient(services().clients, HOSTED_BENCH_CLIENT, true);
    const clientBasic = basic(BENCH_CLIENT.id, BENCH_CLIENT.secret);
    const values = await seedSampleAccounts(base, BENCH_CLIENT, DEFAULT_SCRYPT);

    process.stderr.write("round trips: calling every route's sample events\n");
    const rows = await measureRoundTrips(countingBase, values, {
      outboxFile: config().outboxFile,
      codeLength: config().settings.codes.length,
      reseed: seedSampleDevices,
    });
    console.log("\nDynamoDB round trips per request (every route of lib/routes.ts, sample events from events/)");
    printTable(roundTripTable(rows));

    const systemToken = (await tokenFrom(base, clientBasic, "grant_type=client_credentials&scope=svc_api_sys_users"))
      .access_token;
    const { token: userToken, sid } = await mintUserToken("bench-user", BENCH_CLIENT.id, ["svc_api_user"], 3600);
    if (part("throughput") || part("sign-in"))
      await measureThroughput(
        { clientBasic, systemToken, userToken, userSession: { sub: "bench-user", sid } },
        servers,
      );
    const coldStarts = part("cold-start") ? await benchColdStarts(rows, values) : [];
    if (part("cost"))
      await benchCost(
        rows,
        {
          base: countingBase,
          clientBasic,
          systemToken,
          emails: loginAccounts().map(({ email }) => email),
          password: BENCH_PASSWORD,
        },
        coldStarts,
      );
    if (part("reliability")) benchReliability();
  } finally {
    for (const server of servers) server.stop();
    await dynamo.stop();
    await provider.stop();
  }
}

const stage = process.env.BENCH_BASE_URL;
(stage ? benchDeployedStage(stage.replace(/\/$/, "")) : benchLocalStack()).then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(`bench failed: ${(error as Error).message}`);
    process.exit(1);
  },
);
