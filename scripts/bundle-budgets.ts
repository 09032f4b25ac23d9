import { readFileSync, writeFileSync } from "node:fs";
import { FUNCTION_NAMES } from "../lib/http/route";
import { BUDGET_FILE, type BundleBudget, budgetFrom, budgetProblems, bundleReport } from "./bundle-report";

/**
 * `npm run budgets`: each function's bundle against its budget (infra/bundle-budgets.json),
 * which `npm test` enforces. `npm run budgets -- --write` sets every budget from this
 * build: a reviewed change, with its measured reason in docs/decisions/bundle-budgets.md.
 */

const write = process.argv.includes("--write");
const budgets = JSON.parse(readFileSync(BUDGET_FILE, "utf8")) as Record<string, BundleBudget>;
const reports = [];
for (const fn of FUNCTION_NAMES) reports.push(await bundleReport(fn));

const problems: string[] = [];
console.log("function      KiB  budget  packages at import");
for (const report of reports) {
  const budget = budgets[report.fn];
  problems.push(...budgetProblems(report, budget));
  console.log(
    `${report.fn.padEnd(12)} ${(report.bytes / 1024).toFixed(0).padStart(5)}  ${String(budget?.kib ?? "-").padStart(6)}  ${report.packagesAtImport.length}`,
  );
}
if (write) {
  const next = Object.fromEntries(reports.map((report) => [report.fn, budgetFrom(report)]));
  writeFileSync(BUDGET_FILE, `${JSON.stringify(next, null, 2)}\n`);
  console.log(`wrote ${BUDGET_FILE}`);
} else if (problems.length > 0) {
  for (const problem of problems) console.error(problem);
  process.exit(1);
}
