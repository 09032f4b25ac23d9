import { build, type Metafile } from "esbuild";
import { functionBuildOptions, HASH_WORKER } from "../infra/bundling";
import type { FunctionName } from "../lib/http/route";

/**
 * What a function's Lambda bundle weighs and which packages its cold start evaluates:
 * those reached from the entry by static imports alone (a dynamic import is parsed with
 * the bundle but evaluated only on the call that needs it). Read from esbuild's metafile
 * with the settings `cdk synth` uses.
 */
export interface BundleReport {
  fn: FunctionName;
  /** What a cold start reads and parses: index.mjs and the chunks it imports statically. */
  bytes: number;
  /** Everything the function's folder holds (chunks loaded on demand and the hash worker too), maps aside. */
  totalBytes: number;
  /** Packages (node_modules names) whose code runs when the bundle is imported, sorted. */
  packagesAtImport: string[];
  /** The project's own files whose code runs when the bundle is imported, sorted. */
  sourcesAtImport: string[];
  /** Every bundled input's static and dynamic imports, for checks of how a library is reached. */
  edges: Array<{ from: string; to: string; kind: string }>;
  /** Inputs that left code in the function's own outputs (the hash worker's aside). */
  inputs: string[];
  /** Node built-ins the files read at import bring in. */
  runtimeImports: string[];
}

const STATIC_KINDS = new Set(["import-statement", "require-call", "entry-point"]);

export function packageOf(path: string): string | undefined {
  const at = path.lastIndexOf("node_modules/");
  if (at < 0) return undefined;
  const [first, second] = path.slice(at + "node_modules/".length).split("/");
  return first.startsWith("@") ? `${first}/${second}` : first;
}

/** Every node reached from `start` along `next`'s edges, `start` included. */
function reachable(start: string, next: (node: string) => string[]): Set<string> {
  const reached = new Set([start]);
  const queue = [start];
  while (queue.length > 0) {
    for (const node of next(queue.pop() as string)) {
      if (reached.has(node)) continue;
      reached.add(node);
      queue.push(node);
    }
  }
  return reached;
}

/** The output files a cold start reads: `index` and the chunks it imports statically, transitively. */
export function filesAtImport(metafile: Metafile, index: string): Set<string> {
  return reachable(index, (path) =>
    (metafile.outputs[path]?.imports ?? [])
      .filter((i) => i.kind === "import-statement" && !i.external)
      .map((i) => i.path),
  );
}

export function bytesAtImport(metafile: Metafile, index: string): number {
  return [...filesAtImport(metafile, index)].reduce((sum, path) => sum + (metafile.outputs[path]?.bytes ?? 0), 0);
}

export async function bundleReport(fn: FunctionName): Promise<BundleReport> {
  const entry = `functions/${fn}.ts`;
  const outdir = `dist-report/${fn}`;
  const result = await build({ ...functionBuildOptions(fn, outdir), write: false, metafile: true, sourcemap: false });
  const metafile = result.metafile as Metafile;
  const outputs = Object.entries(metafile.outputs).filter(([path]) => path.endsWith(".mjs"));
  const index = `${outdir}/index.mjs`;
  const worker = `${outdir}/${HASH_WORKER.file}`;
  const atImport = filesAtImport(metafile, index);
  const workerFiles = reachable(worker, (path) =>
    (metafile.outputs[path]?.imports ?? []).filter((i) => !i.external).map((i) => i.path),
  );
  const emitted = new Set(
    outputs
      .filter(([path]) => !workerFiles.has(path) || atImport.has(path))
      .flatMap(([, output]) => Object.entries(output.inputs))
      .filter(([, input]) => input.bytesInOutput > 0)
      .map(([path]) => path),
  );
  const reached = reachable(entry, (from) =>
    (metafile.inputs[from]?.imports ?? [])
      .filter((next) => STATIC_KINDS.has(next.kind) && next.path in metafile.inputs)
      .map((next) => next.path),
  );
  const packages = new Set([...reached].filter((path) => emitted.has(path)).flatMap((path) => packageOf(path) ?? []));
  return {
    fn,
    bytes: bytesAtImport(metafile, index),
    totalBytes: outputs.reduce((sum, [, output]) => sum + output.bytes, 0),
    packagesAtImport: [...packages].sort(),
    sourcesAtImport: [...reached].filter((path) => emitted.has(path) && !packageOf(path)).sort(),
    edges: Object.entries(metafile.inputs).flatMap(([from, input]) =>
      input.imports.map((i) => ({ from, to: i.path, kind: i.kind })),
    ),
    inputs: [...emitted],
    runtimeImports: [...atImport].flatMap((path) =>
      (metafile.outputs[path]?.imports ?? []).filter((i) => i.external).map((i) => i.path),
    ),
  };
}

/** A function's committed budget (infra/bundle-budgets.json): a size ceiling and the packages it may evaluate at import. */
export interface BundleBudget {
  kib: number;
  packagesAtImport: string[];
}

export const BUDGET_FILE = "infra/bundle-budgets.json";
/** Room a budget leaves above the size it was set from, so a one-line change does not trip it. */
const HEADROOM = 1.02;

export function budgetFrom(report: BundleReport): BundleBudget {
  return { kib: Math.ceil((report.bytes / 1024) * HEADROOM), packagesAtImport: report.packagesAtImport };
}

/** What breaks the budget, one line each; empty when it holds. */
export function budgetProblems(report: BundleReport, budget: BundleBudget | undefined): string[] {
  if (!budget) return [`${report.fn}: no budget in ${BUDGET_FILE}`];
  const problems: string[] = [];
  const kib = report.bytes / 1024;
  if (kib > budget.kib) problems.push(`${report.fn}: ${kib.toFixed(1)} KiB, over its budget of ${budget.kib} KiB`);
  for (const name of report.packagesAtImport.filter((p) => !budget.packagesAtImport.includes(p))) {
    problems.push(`${report.fn}: evaluates ${name} at import, which its budget does not list`);
  }
  for (const name of budget.packagesAtImport.filter((p) => !report.packagesAtImport.includes(p))) {
    problems.push(`${report.fn}: no longer evaluates ${name} at import: take it out of the budget`);
  }
  return problems;
}
