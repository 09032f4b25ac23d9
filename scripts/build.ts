import { readFileSync, rmSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { esbuildOptions, HASH_WORKER } from "../infra/bundling";
import { FUNCTION_NAMES } from "../lib/http/route";

/** Bundles every Lambda entry as `cdk synth` would, and shows what each one weighs. */

interface BundleSize {
  name: string;
  bytes: number;
  gzipBytes: number;
}

async function bundle(name: string): Promise<BundleSize> {
  const outfile = `dist/${name}/index.mjs`;
  await build(esbuildOptions(`functions/${name}.ts`, outfile));
  // Beside it, as cdk synth's afterBundling hook puts it: loaded only when a foreign hash is verified.
  await build(esbuildOptions(HASH_WORKER.entry, `dist/${name}/${HASH_WORKER.file}`));
  const code = readFileSync(outfile);
  return { name, bytes: code.length, gzipBytes: gzipSync(code, { level: 9 }).length };
}

function kib(bytes: number): string {
  return (bytes / 1024).toFixed(1);
}

function printTable(sizes: BundleSize[]): void {
  const rows = [
    ["function", "bytes", "KiB", "gzip bytes", "gzip KiB"],
    ...sizes.map((s) => [s.name, String(s.bytes), kib(s.bytes), String(s.gzipBytes), kib(s.gzipBytes)]),
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
