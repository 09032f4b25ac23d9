import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { APIGatewayProxyEventV2 } from "aws-lambda";
import { build } from "esbuild";
import { esbuildOptions } from "../../infra/bundling";
import { config } from "../../lib/config";
import { FUNCTION_NAMES, type FunctionName } from "../../lib/http/route";
import { prepareEvent } from "../../lib/local/events";
import type { RoundTripRow } from "./round-trips";

/**
 * Cold start of each Lambda bundle (npm run build output): a fresh `node` process imports
 * it and answers one sample event against the bench's DynamoDB Local, beside a floor
 * bundle, built the same way, that only imports the DynamoDB clients and does one GetItem.
 */

const WORK_DIR = ".local/bench";
const RUNS = 3;

/** The child: import, answer one event, print the milliseconds of each step. */
const RUNNER = `
const started = performance.now();
const mod = await import(process.argv[1]);
const imported = performance.now();
const event = JSON.parse(process.argv[2]);
const result = await mod.handler(event, { awsRequestId: "cold", functionName: "cold", getRemainingTimeInMillis: () => 29000 });
const answered = performance.now();
console.log(JSON.stringify({ importMs: imported - started, answerMs: answered - imported, status: result?.statusCode }));
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

interface ColdStart {
  name: string;
  bytes: number;
  wallMs: number;
  importMs: number;
  answerMs: number;
  status: string;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function sampleFor(fn: FunctionName, rows: RoundTripRow[]): string | undefined {
  const ok = rows.filter((r) => r.sample.startsWith(`events/${fn}/`) && typeof r.status === "number" && r.status < 300);
  const read = ok.find((r) => r.route.startsWith("GET "));
  if (read ?? ok[0]) return (read ?? ok[0]).sample;
  const dir = join("events", fn);
  const first = readdirSync(dir).find((name) => name.endsWith(".json"));
  return first && join(dir, first);
}

function coldRun(bundle: string, event: unknown): ColdStart {
  const env = {
    ...process.env,
    DYNAMODB_ENDPOINT: config().dynamodbEndpoint,
    TABLE_NAME: config().tableName,
    AWS_REGION: config().region,
    LOG_LEVEL: "silent",
  };
  const walls: number[] = [];
  const imports: number[] = [];
  const answers: number[] = [];
  let status = "";
  for (let run = 0; run < RUNS; run += 1) {
    const started = performance.now();
    const child = spawnSync(
      process.execPath,
      ["--input-type=module", "-e", RUNNER, pathToFileURL(resolve(bundle)).href, JSON.stringify(event)],
      {
        env,
        encoding: "utf8",
        timeout: 30_000,
      },
    );
    walls.push(performance.now() - started);
    const line = child.stdout.trim().split("\n").pop() ?? "";
    try {
      const out = JSON.parse(line) as { importMs: number; answerMs: number; status?: number };
      imports.push(out.importMs);
      answers.push(out.answerMs);
      status = String(out.status ?? "no status");
    } catch {
      status = `failed: ${(child.stderr || child.error?.message || "").split("\n")[0].slice(0, 60)}`;
    }
  }
  return {
    name: "",
    bytes: statSync(bundle).size,
    wallMs: median(walls),
    importMs: imports.length ? median(imports) : Number.NaN,
    answerMs: answers.length ? median(answers) : Number.NaN,
    status,
  };
}

export async function measureColdStarts(rows: RoundTripRow[], values: Record<string, string>): Promise<ColdStart[]> {
  mkdirSync(WORK_DIR, { recursive: true });
  writeFileSync(join(WORK_DIR, "floor.ts"), FLOOR_ENTRY);
  await build(esbuildOptions(join(WORK_DIR, "floor.ts"), join(WORK_DIR, "floor/index.mjs")));
  const floor = { ...coldRun(join(WORK_DIR, "floor/index.mjs"), {}), name: "floor (DynamoDB clients + 1 GetItem)" };
  const results: ColdStart[] = [floor];
  for (const fn of FUNCTION_NAMES) {
    const bundle = `dist/${fn}/index.mjs`;
    const sample = sampleFor(fn, rows);
    try {
      statSync(bundle);
    } catch {
      results.push({
        name: fn,
        bytes: 0,
        wallMs: Number.NaN,
        importMs: Number.NaN,
        answerMs: Number.NaN,
        status: "no bundle: run npm run build",
      });
      continue;
    }
    let event: APIGatewayProxyEventV2 | Record<string, never> = {};
    if (sample) {
      try {
        event = await prepareEvent(JSON.parse(readFileSync(sample, "utf8")) as APIGatewayProxyEventV2, values);
      } catch {
        event = {};
      }
    }
    results.push({ ...coldRun(bundle, event), name: `${fn} (${sample ?? "empty event"})` });
  }
  return results;
}

export function coldStartTable(results: ColdStart[]): string[][] {
  const floor = results[0];
  const ms = (value: number) => (Number.isNaN(value) ? "-" : value.toFixed(0));
  return [
    ["bundle (sample)", "KiB", "x floor", "process ms", "x floor", "import ms", "answer ms", "status"],
    ...results.map((r) => [
      r.name,
      (r.bytes / 1024).toFixed(0),
      (r.bytes / floor.bytes).toFixed(2),
      ms(r.wallMs),
      Number.isNaN(r.wallMs) ? "-" : (r.wallMs / floor.wallMs).toFixed(2),
      ms(r.importMs),
      ms(r.answerMs),
      r.status,
    ]),
  ];
}
