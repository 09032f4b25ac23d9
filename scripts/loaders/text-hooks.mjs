import { readFile } from "node:fs/promises";

/**
 * Node module-loader hooks (run by module.register) that load a `.txt` import as a module
 * whose default export is the file's text, as esbuild's `text` loader does in the bundles.
 */
export async function load(url, context, nextLoad) {
  if (!new URL(url).pathname.endsWith(".txt")) return nextLoad(url, context);
  const text = await readFile(new URL(url), "utf8");
  return { format: "module", source: `export default ${JSON.stringify(text)};`, shortCircuit: true };
}
