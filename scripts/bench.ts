import { spawnSync } from "node:child_process";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { coldStartTable, compareScrypt, measureColdStarts } from "./bench/cold-start";
import { BENCH_CLIENT, startLocalStack } from "./bench/local-stack";
import { printTable } from "./bench/print-table";
import { benchReliability } from "./bench/reliability";
import { measureRoundTrips, roundTripTable } from "./bench/round-trips";
import {
  type LoadSettings,
  type Measured,
  measure,
  type Scenario,
  startGetItemServer,
  throughputTable,
} from "./bench/throughput";

/**
 * `npm run bench`: round trips per route, throughput and latency beside a raw GetItem
 * floor, on a stack of its own on loopback (DynamoDB Local in memory, the local gateway).
 * With BENCH_BASE_URL (a deployed stage), BENCH_CLIENT_ID and BENCH_CLIENT_SECRET it only
 * measures the throughput of that stage (client_credentials, and GET user when BENCH_USER_SUB is set).
 */

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
  return json;
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

async function benchLocalStack(): Promise<void> {
  process.stderr.write("starting DynamoDB Local (in memory) and the gateway on loopback\n");
  const dynamo = await startLocalStack();
  const { createGateway } = await import("../lib/local/gateway");
  const { services } = await import("../lib/services");
  const { DEFAULT_SCRYPT, hashPassword } = await import("../lib/domain/credentials/password-hash");
  const { mintUserToken } = await import("../lib/local/user-token");
  const counting = createGateway({ countRoundTrips: true });
  const plain = createGateway();
  const servers: Server[] = [counting, plain];
  try {
    const countingBase = await listen(counting);
    const base = await listen(plain);
    const now = Math.floor(Date.now() / 1000);
    const hash = await hashPassword(BENCH_PASSWORD, DEFAULT_SCRYPT);
    // The sample events' accounts (events/sample-users.jsonl) and one kept apart for throughput.
    await services().accounts.create(
      {
        sub: "sample-user",
        family_name: "Ivanova",
        given_name: "Maria",
        locked: false,
        email: { value: "maria@example.com", verified: true },
        phone_number: { value: "79991234567", verified: true },
        createdAt: now,
        updatedAt: now,
      },
      hash,
    );
    await services().accounts.create({
      sub: "sample-admin",
      family_name: "Smith",
      given_name: "John",
      locked: false,
      email: { value: "john.smith@example.com", verified: true },
      createdAt: now,
      updatedAt: now,
    });
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
    const clientBasic = basic(BENCH_CLIENT.id, BENCH_CLIENT.secret);
    const { refresh_token } = await tokenFrom(
      base,
      clientBasic,
      `grant_type=password&username=maria%40example.com&password=${encodeURIComponent(BENCH_PASSWORD)}&scope=svc_api_user`,
    );
    const values: Record<string, string> = {
      clientId: BENCH_CLIENT.id,
      clientSecret: BENCH_CLIENT.secret,
      clientBasic: clientBasic.slice("Basic ".length),
      sub: "sample-user",
      username: "maria@example.com",
      password: BENCH_PASSWORD,
      ...(refresh_token && { refreshToken: refresh_token }),
    };

    process.stderr.write("round trips: calling every route once\n");
    const rows = await measureRoundTrips(countingBase, values);
    console.log("\nDynamoDB round trips per request (every route of lib/routes.ts, sample events from events/)");
    printTable(roundTripTable(rows));

    const systemToken = (await tokenFrom(base, clientBasic, "grant_type=client_credentials&scope=svc_api_sys_users"))
      .access_token;
    const { token: userToken } = await mintUserToken("bench-user", BENCH_CLIENT.id, ["svc_api_user"], 3600);
    const userPath = `${base}/svc/api/v3/users/bench-user`;
    const scenarios: Scenario[] = [
      {
        name: "client_credentials grant",
        url: `${base}/svc/oauth/te`,
        method: "POST",
        headers: { authorization: clientBasic, "content-type": FORM },
        body: "grant_type=client_credentials&scope=svc_api_sys_users",
      },
      {
        name: "GET user, system mode",
        url: userPath,
        method: "GET",
        headers: { authorization: `Bearer ${systemToken}` },
      },
      {
        name: "GET user, user mode",
        url: userPath,
        method: "GET",
        headers: {
          authorization: `Bearer ${userToken}`,
          "x-forwarded-for": "203.0.113.10",
          "user-agent": "svc-bench",
        },
      },
      {
        name: "password grant (scrypt N=2^17, >=20 s)",
        url: `${base}/svc/oauth/te`,
        method: "POST",
        headers: { authorization: clientBasic, "content-type": FORM },
        body: `grant_type=password&username=bench%40example.com&password=${encodeURIComponent(BENCH_PASSWORD)}&scope=svc_api_user`,
      },
    ];
    const floorServer = await startGetItemServer("bench-user");
    servers.push(floorServer.server);
    console.log(`\nThroughput on loopback (${load.connections} connections, ${load.seconds} s each, autocannon)`);
    // The floor first and the password grant last: scrypt work still queued after a run would slow the next one.
    const floorScenario: Scenario = { name: "raw GetItem (floor)", url: floorServer.url, method: "GET", headers: {} };
    // DynamoDB Local's JVM is still warming up: an unreported run first, so the floor is not flattered.
    await measure(floorScenario, { ...load, seconds: 2 });
    const [floor] = await runScenarios([floorScenario]);
    const passwordGrant = scenarios.pop()!;
    const measured = await runScenarios(scenarios);
    // One scrypt N=2^17 hash is ~0.5 s of CPU: a short run would end before the first answers.
    measured.push(await measure(passwordGrant, { ...load, seconds: Math.max(load.seconds, 20) }));
    printTable(throughputTable(measured, floor));

    process.stderr.write("cold starts: npm run build, then a fresh node process per bundle\n");
    const build = spawnSync("npm", ["run", "--silent", "build"], { stdio: ["ignore", "ignore", "inherit"] });
    if (build.status !== 0) throw new Error("npm run build failed");
    console.log(
      `\nCold start: fresh node ${process.version} process imports the bundle and answers one event (median of 3)`,
    );
    printTable(coldStartTable(await measureColdStarts(rows, values)));
    console.log("");
    printTable(await compareScrypt());
    benchReliability();
  } finally {
    for (const server of servers) {
      server.close();
      server.closeAllConnections();
    }
    await dynamo.stop();
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
