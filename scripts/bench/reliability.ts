import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { TALLY_DIR, type TallyFigures } from "../../test/support/tally";
import { printTable } from "./print-table";

/**
 * The reliability table (issue 8 item 7): runs the reliability and concurrency tests in a
 * child vitest process, then reads what each test file recorded through
 * test/support/tally.ts (one JSON line per file in .bench/reliability/).
 */

export const RELIABILITY_TESTS = ["test/reliability", "test/functions/rights-concurrency.test.ts"];

const COLUMNS: Array<[keyof TallyFigures, string]> = [
  ["requests", "requests run"],
  ["faults", "faults injected"],
  ["badInputs", "bad inputs tried"],
  ["serverErrors", "500s seen"],
  ["invariantsChecked", "invariants checked"],
  ["invariantsBroken", "invariants broken"],
];

export interface ReliabilityRun {
  passed: boolean;
  seconds: number;
  files: Array<{ file: string } & TallyFigures>;
}

/** The tests start their own DynamoDB Local and tables: nothing of the bench's stack may leak in. */
function withoutBenchStack(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !/^(SVC_|DYNAMODB_|TABLE_NAME$)/.test(name)));
}

export function runReliabilityTests(): ReliabilityRun {
  rmSync(TALLY_DIR, { recursive: true, force: true });
  const started = Date.now();
  // vitest's report goes to stderr: stdout carries only the bench's tables.
  const run = spawnSync("npx", ["vitest", "run", ...RELIABILITY_TESTS], {
    stdio: ["ignore", process.stderr, process.stderr],
    env: withoutBenchStack(process.env),
  });
  const seconds = (Date.now() - started) / 1000;
  const files = existsSync(TALLY_DIR)
    ? readdirSync(TALLY_DIR)
        .filter((name) => name.endsWith(".jsonl"))
        .sort()
        .map((name) => {
          const lines = readFileSync(join(TALLY_DIR, name), "utf8").split("\n").filter(Boolean);
          return JSON.parse(lines[lines.length - 1]) as { file: string } & TallyFigures;
        })
    : [];
  return { passed: run.status === 0, seconds, files };
}

export function reliabilityTable(run: ReliabilityRun): string[][] {
  const total = Object.fromEntries(
    COLUMNS.map(([key]) => [key, run.files.reduce((sum, file) => sum + file[key], 0)]),
  ) as unknown as TallyFigures;
  return [
    ["test file", ...COLUMNS.map(([, title]) => title)],
    ...run.files.map((file) => [file.file, ...COLUMNS.map(([key]) => String(file[key]))]),
    ["total", ...COLUMNS.map(([key]) => String(total[key]))],
  ];
}

/** Runs the tests and prints the table (npm run bench calls this last). */
export function benchReliability(): void {
  process.stderr.write(`reliability: npx vitest run ${RELIABILITY_TESTS.join(" ")}\n`);
  const run = runReliabilityTests();
  console.log(
    `\nReliability: requests run, faults injected, bad inputs tried, 500s seen, invariants broken (${run.files.length} test files, ${run.seconds.toFixed(0)} s, vitest ${run.passed ? "passed" : "FAILED"})`,
  );
  printTable(reliabilityTable(run));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  benchReliability();
}
