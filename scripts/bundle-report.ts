import { build, type Metafile } from "esbuild";
import { esbuildOptions } from "../infra/bundling";
import type { FunctionName } from "../lib/http/route";

/**
 * What a function's Lambda bundle weighs and which packages its cold start evaluates:
 * those reached from the entry by static imports alone (a dynamic import is parsed with
 * the bundle but evaluated only on the call that needs it). Read from esbuild's metafile
 * with the settings `cdk synth` uses.
 */
export interface BundleReport {
  fn: FunctionName;
  bytes: number;
  /** Packages (node_modules names) whose code runs when the bundle is imported, sorted. */
  packagesAtImport: string[];
  /** Every bundled input's static and dynamic imports, for checks of how a library is reached. */
  edges: Array<{ from: string; to: string; kind: string }>;
  /** Inputs that left code in the bundle. */
  inputs: string[];
  /** What the bundle imports at run time (Node built-ins: the bundle is whole otherwise). */
  runtimeImports: string[];
}

const STATIC_KINDS = new Set(["import-statement", "require-call", "entry-point"]);

export function packageOf(path: string): string | undefined {
  const at = path.lastIndexOf("node_modules/");
  if (at < 0) return undefined;
  const [first, second] = path.slice(at + "node_modules/".length).split("/");
  return first.startsWith("@") ? `${first}/${second}` : first;
}

export async function bundleReport(fn: FunctionName): Promise<BundleReport> {
  const entry = `functions/${fn}.ts`;
  const result = await build({
    ...esbuildOptions(entry, `dist-report/${fn}/index.mjs`),
    write: false,
    metafile: true,
    sourcemap: false,
  });
  const metafile = result.metafile as Metafile;
  const [output] = Object.values(metafile.outputs);
  const code = result.outputFiles?.find((file) => file.path.endsWith(".mjs"));
  const emitted = new Set(
    Object.entries(output.inputs)
      .filter(([, input]) => input.bytesInOutput > 0)
      .map(([path]) => path),
  );
  const reached = new Set<string>([entry]);
  const queue = [entry];
  while (queue.length > 0) {
    const from = queue.pop() as string;
    for (const next of metafile.inputs[from]?.imports ?? []) {
      if (!STATIC_KINDS.has(next.kind) || !(next.path in metafile.inputs) || reached.has(next.path)) continue;
      reached.add(next.path);
      queue.push(next.path);
    }
  }
  const packages = new Set([...reached].filter((path) => emitted.has(path)).flatMap((path) => packageOf(path) ?? []));
  return {
    fn,
    bytes: code?.contents.length ?? output.bytes,
    packagesAtImport: [...packages].sort(),
    edges: Object.entries(metafile.inputs).flatMap(([from, input]) =>
      input.imports.map((i) => ({ from, to: i.path, kind: i.kind })),
    ),
    inputs: [...emitted],
    runtimeImports: output.imports.map((i) => i.path),
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
