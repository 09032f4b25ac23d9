import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { APIGatewayProxyEventV2 } from "aws-lambda";
import { build, type Metafile } from "esbuild";
import { splitBuildOptions } from "../../infra/bundling";
import { config } from "../../lib/config";
import { FUNCTION_NAMES, type FunctionName, routeKey } from "../../lib/http/route";
import { prepareEvent } from "../../lib/local/events";
import { routes } from "../../lib/routes";
import { bundleReport, bytesAtImport } from "../bundle-report";
import { freshValues, type RoundTripRow, succeeded } from "./round-trips";

/**
 * Cold start of each Lambda bundle (npm run build output): a fresh `node` process imports
 * it and answers one sample event against the bench's DynamoDB Local, beside a floor
 * bundle, built the same way, that only imports the DynamoDB clients and does one GetItem.
 */

const WORK_DIR = ".local/bench";
/**
 * Rounds over all bundles. In a round every bundle run sits between two runs of the floor
 * (F B1 F B2 ... F), and its ratio is taken against the mean of those two: on a shared
 * machine a busy moment then moves both sides of a ratio, not one, and the reference is
 * less noisy than a single run. The verdict is the median of the paired ratios. On this
 * machine the quartiles of one bundle's ratios lie 0.05 to 0.2 apart (wider for the hashing
 * routes); with 21 rounds the median of registration moved from 1.18 to 1.30 between two
 * bench runs of the same code, so 41 (the median's spread shrinks with the square root).
 */
export const COLD_START_ROUNDS = roundsFrom(process.env.BENCH_ROUNDS);

/** BENCH_ROUNDS=21: fewer rounds for a quick look; anything but a whole number from 1 stops the bench. */
function roundsFrom(raw: string | undefined): number {
  if (raw === undefined || raw === "") return 41;
  const rounds = Number(raw);
  if (!Number.isInteger(rounds) || rounds < 1)
    throw new Error(`BENCH_ROUNDS must be a whole number from 1, not "${raw}"`);
  return rounds;
}

/** BENCH_FUNCTIONS=users,hosted: only those functions (and the floor), for a quick look at one change. */
const ONLY_FUNCTIONS = process.env.BENCH_FUNCTIONS?.split(",");

/**
 * BENCH_CANDIDATES=users=/tmp/users-candidate/index.mjs,...: another build of a function, run
 * with that function's sample in the same rounds, to compare a change side by side.
 */
const CANDIDATES = (process.env.BENCH_CANDIDATES ?? "")
  .split(",")
  .filter(Boolean)
  .map((pair) => [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)] as [string, string]);
/**
 * The node binary of the cold runs: `BENCH_NODE` (say, a Node 22 binary, the line of Lambda's
 * nodejs22.x) or the one running the bench.
 */
export const COLD_START_NODE = process.env.BENCH_NODE || process.execPath;

/** The version of COLD_START_NODE, as it prints it. */
export function coldStartNodeVersion(): string {
  const out = spawnSync(COLD_START_NODE, ["--version"], { encoding: "utf8" });
  if (out.status !== 0)
    throw new Error(`BENCH_NODE=${COLD_START_NODE} does not run: ${out.error?.message ?? out.stderr}`);
  return out.stdout.trim();
}

/** Unmeasured runs of every bundle before the rounds (see measureColdStarts). */
const WARM_UP_RUNS = 3;

/**
 * The child: import, answer one event, print the milliseconds of each step. It wraps
 * node:crypto's scrypt before importing the bundle, so the time the answer spent in its own
 * password hash is known exactly (the bundle's `import { scrypt } from "node:crypto"`
 * sees the wrapper once the builtin's ESM exports are synced).
 */
const RUNNER = `
import crypto from "node:crypto";
import { syncBuiltinESMExports } from "node:module";
let hashMs = 0;
const scrypt = crypto.scrypt;
crypto.scrypt = function (...args) {
  const done = args.pop();
  const hashStarted = performance.now();
  return scrypt.call(this, ...args, (...result) => {
    hashMs += performance.now() - hashStarted;
    done(...result);
  });
};
syncBuiltinESMExports();
const started = performance.now();
const mod = await import(process.argv[1]);
const imported = performance.now();
const event = JSON.parse(process.argv[2]);
const result = await mod.handler(event, { awsRequestId: "cold", functionName: "cold", getRemainingTimeInMillis: () => 29000 });
const answered = performance.now();
const cpu = process.cpuUsage();
console.log(JSON.stringify({ importMs: imported - started, answerMs: answered - imported, cpuMs: (cpu.user + cpu.system) / 1000, status: result?.statusCode, hashMs }));
process.exit(0);
`;

const FLOOR_ENTRY = `
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient, GetCommand } from "@aws-sdk/lib-dynamodb";
const client = DynamoDBDocumentClient.from(new DynamoDBClient({
  endpoint: process.env.DYNAMODB_ENDPOINT,
  region: process.env.AWS_REGION,
  credentials: { accessKeyId: "local", secretAccessKey: "local" },
}));
export async function handler() {
  const out = await client.send(new GetCommand({ TableName: process.env.TABLE_NAME, Key: { PK: "USER#bench-user", SK: "PROFILE" } }));
  return { statusCode: out.Item ? 200 : 404 };
}
`;

export interface ColdStart {
  name: string;
  /** The function whose bundle this is; none for the floor. */
  fn?: FunctionName;
  bytes: number;
  wallMs: number;
  /** CPU the child used (user + system): less moved by other load on the machine than wall time. */
  cpuMs: number;
  importMs: number;
  answerMs: number;
  status: string;
  /** Time of work the route must do (a password hash) left out of the verdict. */
  lessMs?: number;
  /** Median over rounds of this run's wall time against the floor runs around it. */
  pairedRatio: number;
  /** The same, with `lessMs` taken off this run first. */
  pairedRatioLess: number;
  /** Quartiles of the judged ratios (`pairedRatioLess`'s): how much one run moves. */
  spread?: [number, number];
}

export function median(values: number[]): number {
  return quantile(values, 0.5);
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))];
}

/**
 * The samples that answered 2xx for a function in the round-trip run, reads first, then the
 * others in the run's order; the first of its directory when none did. A later route of the
 * run can undo what a sample needs (groups.delete removes the group get-group reads), so the
 * cold runs take the first of these that still answers 2xx (measureColdStarts).
 */
export function sampleCandidates(fn: FunctionName, rows: RoundTripRow[], dir = join("events", fn)): string[] {
  const ok = rows.filter((r) => r.sample.startsWith(`${dir}/`) && succeeded(r));
  const ordered = [...ok.filter((r) => r.route.startsWith("GET ")), ...ok.filter((r) => !r.route.startsWith("GET "))];
  const samples = [...new Set(ordered.map((r) => r.sample))];
  if (samples.length > 0) return samples;
  const first = readdirSync(dir).find((name) => name.endsWith(".json"));
  return first ? [join(dir, first)] : [];
}

/**
 * What a cold start of a build on disk reads: its index.mjs and the chunks it imports
 * statically (esbuild's `import ... from"./chunk.mjs"`), for a candidate that has no metafile.
 */
function bytesReadFrom(index: string): number {
  const read = new Set<string>();
  const visit = (file: string) => {
    if (read.has(file)) return;
    read.add(file);
    const code = readFileSync(file, "utf8");
    for (const [, path] of code.matchAll(/\bimport\s*(?:[^"'()]*?from\s*)?["'](\.\/[^"']+\.mjs)["']/g)) {
      visit(join(dirname(file), path));
    }
  };
  visit(index);
  return [...read].reduce((sum, file) => sum + statSync(file).size, 0);
}

/** Candidates tried before a function is measured on whatever its last one answers. */
const MAX_SAMPLE_TRIES = 5;

/** What a cold run's answer must be for it to stand for the function: a success. */
function answeredAsSampled(status: string, event: unknown): boolean {
  // The scheduled jobs return nothing; an HTTP event always gets a status.
  if ((event as { routeKey?: string }).routeKey === undefined) return status === "no status";
  return /^2\d\d$/.test(status);
}

interface Sampled {
  walls: number[];
  /** Mean wall time of the floor runs just before and just after each of these runs. */
  floorWalls: number[];
  cpus: number[];
  imports: number[];
  answers: number[];
  /** Time the answer spent in scrypt, timed by the child (hashing routes only). */
  hashes: number[];
  status: string;
}

/**
 * BENCH_TRACING=1: the cold runs get Lambda's tracing environment, so each function loads and
 * runs the X-Ray tracer as it does on Lambda with active tracing (its segments go to a UDP
 * port nobody reads). The floor has no tracer either way.
 */
const TRACING_ENV = process.env.BENCH_TRACING
  ? {
      AWS_EXECUTION_ENV: "AWS_Lambda_nodejs22.x",
      LAMBDA_TASK_ROOT: "/var/task",
      _X_AMZN_TRACE_ID: "Root=1-6743a1b2-0123456789abcdef01234567;Parent=0123456789abcdef;Sampled=1",
      AWS_XRAY_DAEMON_ADDRESS: "127.0.0.1:2000",
    }
  : {};

function coldRun(bundle: string, event: unknown, into: Sampled, timesHash = false): void {
  const env = {
    ...process.env,
    ...TRACING_ENV,
    DYNAMODB_ENDPOINT: config().dynamodbEndpoint,
    TABLE_NAME: config().tableName,
    AWS_REGION: config().region,
    LOG_LEVEL: "silent",
  };
  const started = performance.now();
  const child = spawnSync(
    COLD_START_NODE,
    [
      // BENCH_CPU_PROF=<dir>: a V8 profile of each cold start, for finding where the time goes
      // (sampled every 100 µs: V8's default of 1 ms leaves a 150 ms start a hundred samples).
      ...(process.env.BENCH_CPU_PROF
        ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`, "--cpu-prof-interval=100"]
        : []),
      "--input-type=module",
      "-e",
      RUNNER,
      pathToFileURL(resolve(bundle)).href,
      JSON.stringify(event),
    ],
    { env, encoding: "utf8", timeout: 30_000 },
  );
  const wall = performance.now() - started;
  const line = child.stdout.trim().split("\n").pop() ?? "";
  try {
    const out = JSON.parse(line) as {
      importMs: number;
      answerMs: number;
      cpuMs: number;
      status?: number;
      hashMs?: number;
    };
    into.walls.push(wall);
    if (timesHash) into.hashes.push(out.hashMs ?? 0);
    into.imports.push(out.importMs);
    into.answers.push(out.answerMs);
    into.cpus.push(out.cpuMs);
    into.status = String(out.status ?? "no status");
  } catch {
    into.walls.push(wall);
    into.status = `failed: ${(child.stderr || child.error?.message || "").split("\n")[0].slice(0, 60)}`;
  }
}

/**
 * These routes hash a password (scrypt, ~0.5 s) by nature: their answer is judged less the
 * time its own scrypt call took in that process. (Before, a second hash timed after the
 * answer was taken off; two hashes of one process differ by up to 100 ms on this machine,
 * more than the margin being judged.)
 */
const HASHING_ROUTES: ReadonlySet<string> = new Set([
  "registration.register",
  "passwords.change",
  "passwords.subordinate",
]);

function hashes(event: unknown): boolean {
  const key = (event as { routeKey?: string }).routeKey;
  return routes.some((route) => routeKey(route) === key && HASHING_ROUTES.has(route.id));
}

const emptySampled = (): Sampled => ({
  walls: [],
  floorWalls: [],
  cpus: [],
  imports: [],
  answers: [],
  hashes: [],
  status: "",
});

/** The sample prepared for one run: fresh values (sub, e-mail, phone, new password) of its own, by `tag`. */
async function runEvent(sample: string, values: Record<string, string>, tag: string): Promise<unknown> {
  try {
    const event = JSON.parse(readFileSync(sample, "utf8")) as APIGatewayProxyEventV2;
    return await prepareEvent(event, { ...values, ...freshValues(`cold-${tag}`) });
  } catch {
    return {};
  }
}

/** One event per run of a subject: warm-ups, then rounds. */
function runEvents(sample: string, values: Record<string, string>, tag: string): Promise<unknown[]> {
  return Promise.all(
    Array.from({ length: WARM_UP_RUNS + COLD_START_ROUNDS }, (_, run) => runEvent(sample, values, `${tag}-${run}`)),
  );
}

const eventOf = (subject: { events: unknown[] }, run: number): unknown => subject.events[run] ?? {};

const medianOr = (values: number[]) => (values.length ? median(values) : Number.NaN);

export async function measureColdStarts(rows: RoundTripRow[], values: Record<string, string>): Promise<ColdStart[]> {
  mkdirSync(WORK_DIR, { recursive: true });
  writeFileSync(join(WORK_DIR, "floor.ts"), FLOOR_ENTRY);
  // Built as the functions are (code splitting), so the SDK's on-demand parts leave the floor too.
  const floorBuild = await build({
    ...splitBuildOptions({ index: join(WORK_DIR, "floor.ts") }, join(WORK_DIR, "floor")),
    metafile: true,
  });
  const floorBytes = bytesAtImport(floorBuild.metafile as Metafile, join(WORK_DIR, "floor/index.mjs"));
  const subjects: {
    name: string;
    fn?: FunctionName;
    bundle: string;
    /** Known without the function's build report (a candidate's). */
    bytes?: number;
    /** The event of each run (warm-ups, then rounds): its own account, address and password. */
    events: unknown[];
    hashing?: boolean;
  }[] = [{ name: "floor (DynamoDB clients + 1 GetItem)", bundle: join(WORK_DIR, "floor/index.mjs"), events: [] }];
  // BENCH_CANDIDATES=floor=...: a floor built with other bundle settings, judged against this one.
  for (const [, candidate] of CANDIDATES.filter(([name]) => name === "floor")) {
    subjects.push({
      name: `floor candidate ${candidate}`,
      bundle: candidate,
      bytes: bytesReadFrom(candidate),
      events: [],
    });
  }
  const missing: ColdStart[] = [];
  for (const fn of FUNCTION_NAMES) {
    if (ONLY_FUNCTIONS && !ONLY_FUNCTIONS.includes(fn)) continue;
    const bundle = `dist/${fn}/index.mjs`;
    try {
      statSync(bundle);
    } catch {
      missing.push({
        name: fn,
        fn,
        bytes: 0,
        wallMs: Number.NaN,
        cpuMs: Number.NaN,
        importMs: Number.NaN,
        answerMs: Number.NaN,
        status: "no bundle: run npm run build",
        pairedRatio: Number.NaN,
        pairedRatioLess: Number.NaN,
      });
      continue;
    }
    const candidates = sampleCandidates(fn, rows).slice(0, MAX_SAMPLE_TRIES);
    let chosen: { sample?: string; event: unknown } = { event: {} };
    for (const sample of candidates) {
      const tries = [await runEvent(sample, values, `${fn}-try1`), await runEvent(sample, values, `${fn}-try2`)];
      chosen = { sample, event: tries[0] };
      // A sample must answer as sampled run after run, each run with its own fresh values (a
      // registration's account): one that succeeds only once would time an error path.
      const answersTwice = tries.every((event) => {
        const tried = emptySampled();
        coldRun(bundle, event, tried, hashes(event));
        return answeredAsSampled(tried.status, event);
      });
      if (answersTwice) break;
    }
    const eventsOf = (tag: string) => (chosen.sample ? runEvents(chosen.sample, values, tag) : Promise.resolve([]));
    subjects.push({
      name: `${fn} (${chosen.sample ?? "empty event"})`,
      fn,
      bundle,
      events: await eventsOf(fn),
      hashing: hashes(chosen.event),
    });
    for (const [, candidate] of CANDIDATES.filter(([name]) => name === fn)) {
      subjects.push({
        name: `${fn} candidate ${candidate}`,
        fn,
        bundle: candidate,
        bytes: bytesReadFrom(candidate),
        events: await eventsOf(`${fn}-candidate-${candidate}`),
        hashing: hashes(chosen.event),
      });
    }
  }
  const samples = subjects.map(emptySampled);
  const [floor] = subjects;
  // Unmeasured runs first, so each bundle and sample meets the same page cache and the same
  // DynamoDB Local in its measured runs as the floor does. (The JVM's warm-up for each kind
  // of request, hundreds of runs, is scripts/bench/warm-dynamodb.ts, before this.)
  for (let run = 0; run < WARM_UP_RUNS; run += 1) {
    for (const subject of subjects) coldRun(subject.bundle, eventOf(subject, run), emptySampled(), subject.hashing);
  }
  const lastFloor = () => samples[0].walls[samples[0].walls.length - 1];
  for (let round = 0; round < COLD_START_ROUNDS; round += 1) {
    coldRun(floor.bundle, {}, samples[0]);
    for (const [i, subject] of subjects.entries()) {
      if (i === 0) continue;
      const before = lastFloor();
      coldRun(subject.bundle, eventOf(subject, WARM_UP_RUNS + round), samples[i], subject.hashing);
      coldRun(floor.bundle, {}, samples[0]);
      samples[i].floorWalls.push((before + lastFloor()) / 2);
    }
  }
  // Each run of a hashing route is judged less the time of the hash inside its answer.
  const pairedRatios = (i: number, less: boolean) =>
    samples[i].walls.map(
      (wall, round) => (wall - (less ? (samples[i].hashes[round] ?? 0) : 0)) / samples[i].floorWalls[round],
    );
  // What each cold start reads: index.mjs and the chunks it imports at once.
  const reportedBytes = new Map<FunctionName, number>();
  for (const { fn } of subjects) if (fn) reportedBytes.set(fn, (await bundleReport(fn)).bytes);
  const pairedMedian = (i: number, less: boolean) => (i === 0 ? 1 : median(pairedRatios(i, less)));
  return [
    ...subjects.map((subject, i) => ({
      name: subject.name,
      fn: subject.fn,
      bytes: subject.bytes ?? (subject.fn ? (reportedBytes.get(subject.fn) ?? 0) : floorBytes),
      wallMs: median(samples[i].walls),
      cpuMs: medianOr(samples[i].cpus),
      importMs: medianOr(samples[i].imports),
      answerMs: medianOr(samples[i].answers),
      status: samples[i].status,
      lessMs: samples[i].hashes.length ? median(samples[i].hashes) : undefined,
      pairedRatio: pairedMedian(i, false),
      pairedRatioLess: pairedMedian(i, true),
      spread:
        i === 0
          ? undefined
          : ([quantile(pairedRatios(i, true), 0.25), quantile(pairedRatios(i, true), 0.75)] as [number, number]),
    })),
    ...missing,
  ];
}

/**
 * Issue 45's targets for an HTTP function, as a ratio to the floor: 1.25 as a function runs
 * locally (the tracer not loaded), 1.35 with Lambda's tracing environment (BENCH_TRACING=1).
 */
export const COLD_START_TARGET = process.env.BENCH_TRACING ? 1.35 : 1.25;

function verdict(r: ColdStart, floor: ColdStart): string {
  if (r === floor || Number.isNaN(r.wallMs)) return "";
  // A sample that no longer succeeds times an error path, which says little about the function.
  if (!/^(2\d\d|no status)$/.test(r.status)) return "not judged: the sample did not succeed";
  const met = r.pairedRatioLess <= COLD_START_TARGET;
  const less = r.lessMs ? ` less its hash (${r.lessMs.toFixed(0)} ms): ${r.pairedRatioLess.toFixed(2)}x` : "";
  return `${met ? "met" : "NOT MET"}${less}`;
}

export function coldStartTable(results: ColdStart[]): string[][] {
  const floor = results[0];
  const ms = (value: number) => (Number.isNaN(value) ? "-" : value.toFixed(0));
  const ratio = (value: number, of: number) => (Number.isNaN(value) ? "-" : (value / of).toFixed(2));
  return [
    [
      "bundle (sample)",
      "KiB",
      "x floor",
      "process ms",
      "x floor (paired)",
      "quartiles",
      "CPU ms",
      "x floor",
      "import ms",
      "answer ms",
      "",
      "status",
    ],
    ...results.map((r) => [
      r.name,
      (r.bytes / 1024).toFixed(0),
      ratio(r.bytes, floor.bytes),
      ms(r.wallMs),
      Number.isNaN(r.pairedRatio) ? "-" : r.pairedRatio.toFixed(2),
      r.spread ? `${r.spread[0].toFixed(2)}-${r.spread[1].toFixed(2)}` : "",
      ms(r.cpuMs),
      ratio(r.cpuMs, floor.cpuMs),
      ms(r.importMs),
      ms(r.answerMs),
      verdict(r, floor),
      r.status,
    ]),
  ];
}
