import { fork } from "node:child_process";
import { closeSync, mkdirSync, openSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import type { ServerKind } from "./server-process";

/** Requests per second and latency of one scenario, measured with autocannon on loopback or a stage. */

export interface Scenario {
  name: string;
  url: string;
  method: "GET" | "POST";
  headers: Record<string, string>;
  body?: string;
  /** Bodies sent in turn instead of `body` (e.g. one account per login, as real traffic has). */
  bodies?: string[];
}

export interface Measured {
  name: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  ok: number;
  failed: number;
  /** What the failures were: statuses and timeouts, for a reader to tell load from bugs. */
  failures: string;
  /** DynamoDB calls this process sent per answered request (local stack only: checks nothing is cached). */
  dynamoCallsPerRequest: number;
  /** CPU the server process used per answered request (its libuv pool included). */
  cpuMsPerRequest: number;
}

export interface LoadSettings {
  connections: number;
  seconds: number;
}

function failuresOf(result: autocannon.Result): string {
  const statuses = Object.entries(result.statusCodeStats ?? {})
    .filter(([status]) => !status.startsWith("2"))
    .map(([status, stats]) => `${stats.count ?? 0}x${status}`);
  const timeouts = result.timeouts ? [`${result.timeouts} timeouts`] : [];
  const others = result.errors - result.timeouts ? [`${result.errors - result.timeouts} connection errors`] : [];
  return [...statuses, ...timeouts, ...others].join(", ");
}

async function perRequest(
  server: ServerProcess | undefined,
  before: { calls: number; cpuMs: number },
  requests: number,
): Promise<Pick<Measured, "dynamoCallsPerRequest" | "cpuMsPerRequest">> {
  if (!server) return { dynamoCallsPerRequest: Number.NaN, cpuMsPerRequest: Number.NaN };
  const after = await server.stats();
  return {
    dynamoCallsPerRequest: (after.calls - before.calls) / requests,
    cpuMsPerRequest: (after.cpuMs - before.cpuMs) / requests,
  };
}

function inTurn(bodies: string[]): (request: autocannon.Request) => autocannon.Request {
  let next = 0;
  return (request) => ({ ...request, body: bodies[next++ % bodies.length] });
}

export async function measure(scenario: Scenario, load: LoadSettings, server?: ServerProcess): Promise<Measured> {
  const before = server ? await server.stats() : { calls: 0, cpuMs: 0 };
  const result = await autocannon({
    url: scenario.url,
    method: scenario.method,
    headers: scenario.headers,
    body: scenario.body,
    ...(scenario.bodies && { requests: [{ setupRequest: inTurn(scenario.bodies) }] }),
    connections: load.connections,
    duration: load.seconds,
    // Bounded in count as well as in time.
    maxOverallRequests: 200_000,
    // A scrypt scenario queues ten hashes of ~0.5 s on two cores behind each other.
    timeout: 30,
  });
  const counted = await perRequest(server, before, Math.max(1, result.requests.total));
  if (server) await untilIdle(server);
  return {
    name: scenario.name,
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    ok: result["2xx"],
    // `errors` counts timeouts too.
    failed: result.non2xx + result.errors,
    failures: failuresOf(result),
    ...counted,
  };
}

/**
 * A unit of work of several dependent requests (a sign-in's form post, then its code
 * exchange), which autocannon cannot chain: `prepare` runs once per connection before the
 * clock starts, `run` once per unit and throws when the unit did not succeed.
 */
export interface Flow<Worker> {
  name: string;
  prepare(): Promise<Worker>;
  run(worker: Worker, signal: AbortSignal): Promise<void>;
}

/** The value at fraction `q` of the ascending `sorted` (nearest rank). */
function quantile(sorted: number[], q: number): number {
  return sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

/**
 * A flow under load as autocannon loads one request: `load.connections` loops at once for
 * `load.seconds`, each starting its next unit when the last one ends. Units still running
 * at the end are cut off and not counted, as autocannon does; latencies are of whole units.
 */
export async function measureFlow<Worker>(
  flow: Flow<Worker>,
  load: LoadSettings,
  server?: ServerProcess,
): Promise<Measured> {
  const workers = await Promise.all(Array.from({ length: load.connections }, () => flow.prepare()));
  const before = server ? await server.stats() : { calls: 0, cpuMs: 0 };
  const stop = new AbortController();
  const latencies: number[] = [];
  const failures = new Map<string, number>();
  const started = performance.now();
  const end = started + load.seconds * 1000;
  const timer = setTimeout(() => stop.abort(), load.seconds * 1000);
  const loop = async (worker: Worker) => {
    while (performance.now() < end) {
      const unitStarted = performance.now();
      try {
        // The same 30 s ceiling autocannon's requests get.
        await flow.run(worker, AbortSignal.any([stop.signal, AbortSignal.timeout(30_000)]));
        if (performance.now() <= end) latencies.push(performance.now() - unitStarted);
      } catch (error) {
        if (stop.signal.aborted) return;
        const what = (error as Error).message;
        failures.set(what, (failures.get(what) ?? 0) + 1);
      }
    }
  };
  await Promise.all(workers.map(loop));
  clearTimeout(timer);
  const failed = [...failures.values()].reduce((sum, n) => sum + n, 0);
  const counted = await perRequest(server, before, Math.max(1, latencies.length + failed));
  if (server) await untilIdle(server);
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    name: flow.name,
    requestsPerSecond: latencies.length / load.seconds,
    p50: Math.round(quantile(sorted, 0.5)),
    p99: Math.round(quantile(sorted, 0.99)),
    ok: latencies.length,
    failed,
    failures: [...failures].map(([what, n]) => `${n}x ${what}`).join(", "),
    ...counted,
  };
}

/**
 * Waits until the server has finished what autocannon left in flight: a scrypt run ends
 * with up to one hash per connection still queued (seconds of CPU), which would otherwise
 * be charged to whichever scenario runs next.
 */
async function untilIdle(server: ServerProcess): Promise<void> {
  const INTERVAL_MS = 250;
  const IDLE_CPU_MS = 0.1 * INTERVAL_MS;
  const deadline = Date.now() + 30_000;
  let last = await server.stats();
  while (Date.now() < deadline) {
    await new Promise((done) => setTimeout(done, INTERVAL_MS));
    const now = await server.stats();
    if (now.cpuMs - last.cpuMs < IDLE_CPU_MS) return;
    last = now;
  }
}

/** A server of scripts/bench/server-process.ts under load in its own process. */
export interface ServerProcess {
  url: string;
  /** DynamoDB calls the process has sent and CPU it has used so far. */
  stats(): Promise<{ calls: number; cpuMs: number }>;
  stop(): void;
}

/** Where each server's stdout and stderr go: what Lambda's log agent would collect. */
export const SERVER_LOG_DIR = join(".bench", "servers");

export async function startServerProcess(
  kind: ServerKind,
  { args = [], env = {} }: { args?: string[]; env?: Record<string, string> } = {},
): Promise<ServerProcess> {
  // Logs and EMF lines go to a file, as on Lambda they go to the log agent: a pipe that the
  // load generator's busy event loop must drain would slow the server and not Lambda.
  mkdirSync(SERVER_LOG_DIR, { recursive: true });
  const log = openSync(join(SERVER_LOG_DIR, `${kind}${Object.keys(env).length > 0 ? "-variant" : ""}.log`), "w");
  const child = fork(fileURLToPath(new URL("./server-process.ts", import.meta.url)), [kind, ...args], {
    // BENCH_CPU_PROF=<dir>: a V8 profile of each server under load, written when it stops.
    execArgv: [
      "--import",
      "tsx",
      "--import",
      new URL("../loaders/text.mjs", import.meta.url).href,
      ...(process.env.BENCH_CPU_PROF ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []),
    ],
    stdio: ["ignore", log, log, "ipc"],
    env: { ...process.env, ...env },
  });
  closeSync(log);
  const port = await new Promise<number>((done, fail) => {
    const ready = (message: unknown) => {
      if (typeof message !== "object" || message === null || !("ready" in message)) return;
      child.off("message", ready);
      done((message as { ready: number }).ready);
    };
    child.on("message", ready);
    child.once("exit", (code) =>
      fail(new Error(`${kind} server exited with ${code} before it was ready (see ${SERVER_LOG_DIR}/${kind}.log)`)),
    );
  });
  return {
    url: `http://127.0.0.1:${port}`,
    stats: () =>
      new Promise((done) => {
        child.once("message", (message) => done(message as { calls: number; cpuMs: number }));
        child.send("count");
      }),
    stop: () => child.kill("SIGTERM"),
  };
}

/** A measured scenario beside the reference it is judged against, and the target ratio. */
export interface Compared {
  measured: Measured;
  reference?: Measured;
  /** Lowest acceptable ratio to the reference. */
  minRatio?: number;
  /** Lowest acceptable requests per second. */
  minPerSecond?: number;
}

function verdict({ measured, reference, minRatio, minPerSecond }: Compared): string {
  const ratio = reference ? measured.requestsPerSecond / reference.requestsPerSecond : undefined;
  const checks: boolean[] = [];
  if (minRatio !== undefined && ratio !== undefined) checks.push(ratio >= minRatio);
  if (minPerSecond !== undefined) checks.push(measured.requestsPerSecond >= minPerSecond);
  if (checks.length === 0) return "";
  return checks.every(Boolean) ? "met" : "NOT MET";
}

function targetText({ minRatio, minPerSecond }: Compared): string {
  return [minPerSecond !== undefined && `>= ${minPerSecond}/s`, minRatio !== undefined && `>= ${minRatio}x`]
    .filter(Boolean)
    .join(", ");
}

export function throughputTable(rows: Compared[]): string[][] {
  return [
    [
      "scenario",
      "req/s",
      "p50 ms",
      "p99 ms",
      "2xx",
      "failed",
      "DynamoDB calls/req",
      "server CPU ms/req",
      "reference",
      "ratio",
      "target",
      "",
    ],
    ...rows.map((row) => {
      const { measured, reference } = row;
      return [
        measured.name,
        measured.requestsPerSecond.toFixed(0),
        String(measured.p50),
        String(measured.p99),
        String(measured.ok),
        measured.failed ? `${measured.failed} (${measured.failures})` : "0",
        Number.isNaN(measured.dynamoCallsPerRequest) ? "-" : measured.dynamoCallsPerRequest.toFixed(2),
        Number.isNaN(measured.cpuMsPerRequest) ? "-" : measured.cpuMsPerRequest.toFixed(2),
        reference ? reference.name : "-",
        reference ? (measured.requestsPerSecond / reference.requestsPerSecond).toFixed(2) : "-",
        targetText(row) || "-",
        verdict(row),
      ];
    }),
  ];
}
