import { readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { functionBuildOptions } from "../infra/bundling";
import { FUNCTION_NAMES, type FunctionName } from "../lib/http/route";

/** Bundles every Lambda entry as `cdk synth` would, and shows what each one weighs. */

interface BundleSize {
  name: string;
  /** index.mjs alone; the chunks it imports at once are in `npm run budgets`. */
  bytes: number;
  gzipBytes: number;
  /** The whole folder's code (chunks loaded on demand and the hash worker included). */
  totalBytes: number;
}

async function bundle(name: FunctionName): Promise<BundleSize> {
  const outdir = `dist/${name}`;
  // The same build as cdk synth's (infra/bundling.ts).
  await build(functionBuildOptions(name, outdir));
  const code = readFileSync(join(outdir, "index.mjs"));
  const totalBytes = readdirSync(outdir)
    .filter((file) => file.endsWith(".mjs"))
    .reduce((sum, file) => sum + readFileSync(join(outdir, file)).length, 0);
  return { name, bytes: code.length, gzipBytes: gzipSync(code, { level: 9 }).length, totalBytes };
}

function kib(bytes: number): string {
  return (bytes / 1024).toFixed(1);
}

function printTable(sizes: BundleSize[]): void {
  const rows = [
    ["function", "index.mjs bytes", "KiB", "gzip KiB", "all files KiB"],
    ...sizes.map((s) => [s.name, String(s.bytes), kib(s.bytes), kib(s.gzipBytes), kib(s.totalBytes)]),
  ];
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  for (const row of rows) {
    console.log(
      row
        .map((cell, column) => (column === 0 ? cell.padEnd(widths[column]) : cell.padStart(widths[column])))
        .join("  "),
    );
  }
}

// A stale bundle of a removed function must not look like a current one.
rmSync("dist", { recursive: true, force: true });

const results = await Promise.allSettled(FUNCTION_NAMES.map(bundle));
const failed = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
if (failed.length > 0) {
  // esbuild has already printed each error with its location.
  console.error(`build failed: ${failed.length} of ${FUNCTION_NAMES.length} functions`);
  process.exit(1);
}
printTable(results.map((r) => (r as PromiseFulfilledResult<BundleSize>).value));
