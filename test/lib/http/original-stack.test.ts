import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { esbuildOptions } from "../../../infra/bundling";
import { originalStack } from "../../../lib/original-stack";

// A source whose throwing line is known, bundled with the Lambda settings (minified, map beside it).
const SOURCE = ["export function failDeep(): never {", '  throw new Error("deep failure");', "}", ""].join("\n");

let dir: string;
let entry: string;

/** The stack a plain `node` (as on Lambda, no source-map support) gives for the bundle's error. */
async function bundledFailure(outfile: string, withMap: boolean): Promise<string> {
  await build({ ...esbuildOptions(entry, outfile), sourcemap: withMap, logLevel: "silent" });
  const script = `import(${JSON.stringify(pathToFileURL(outfile).href)}).then((m) => { try { m.failDeep(); } catch (e) { process.stdout.write(e.stack); } })`;
  return execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "original-stack-"));
  entry = join(dir, "entry.ts");
  writeFileSync(entry, SOURCE);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("originalStack", () => {
  it("when an error is thrown in a minified bundle with its map beside it, its frame names the source line", async () => {
    const outfile = join(dir, "mapped", "index.mjs");
    const raw = await bundledFailure(outfile, true);
    // Without mapping, the frame points into the one-line bundle.
    expect(raw).toMatch(new RegExp(`${pathToFileURL(outfile).href}:\\d+:\\d+`));

    const stack = originalStack(raw) ?? "";
    expect(stack.split("\n")[0]).toBe("Error: deep failure");
    expect(stack.split("\n")[1]).toMatch(new RegExp(`\\(?${entry.replaceAll(".", "\\.")}:2:\\d+\\)?$`));
    expect(stack).not.toContain(pathToFileURL(outfile).href);
  });

  it("when a bundle has no map beside it, its frames stay as they are", async () => {
    const outfile = join(dir, "unmapped", "index.mjs");
    const raw = await bundledFailure(outfile, false);
    expect(raw).toMatch(new RegExp(`${pathToFileURL(outfile).href}:\\d+:\\d+`));
    expect(originalStack(raw)).toBe(raw);
  });

  it("when frames are not in a bundle (node internals, TypeScript run by tsx), they stay as they are", () => {
    const stack = [
      "Error: x",
      "    at handler (file:///srv/app/lib/http/pipeline.ts:10:5)",
      "    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)",
    ].join("\n");
    expect(originalStack(stack)).toBe(stack);
    expect(originalStack(undefined)).toBeUndefined();
  });

  it("when a bundle's logger writes an error, the log line carries the source's stack", async () => {
    // The logger as it ships: bundled with the code that fails, run by a plain node.
    const logging = join(dir, "logging.ts");
    writeFileSync(
      logging,
      [
        `import { log } from ${JSON.stringify(resolve("lib/log.ts"))};`,
        `import { failDeep } from "./entry";`,
        "try {",
        "  failDeep();",
        "} catch (error) {",
        '  log.error("unhandled error", { error });',
        "}",
        "",
      ].join("\n"),
    );
    const outfile = join(dir, "logging", "index.mjs");
    await build({ ...esbuildOptions(logging, outfile), logLevel: "silent" });
    const run = spawnSync(process.execPath, [outfile], {
      encoding: "utf8",
      env: { ...process.env, LOG_LEVEL: "error" },
    });
    const line = JSON.parse(run.stderr.trim().split("\n").pop() ?? "{}");
    expect(line).toMatchObject({ level: "error", message: "unhandled error", error: { message: "deep failure" } });
    const frames = String(line.error.stack).split("\n");
    expect(frames[1]).toMatch(new RegExp(`${entry.replaceAll(".", "\\.")}:2:\\d+\\)?$`));
    expect(frames[2]).toMatch(new RegExp(`${logging.replaceAll(".", "\\.")}:4:\\d+\\)?$`));
  });
});
