import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";
import { buildSync } from "esbuild";
import { staleFiles } from "./generated-files";

/**
 * The admin console's front end (console/, docs/console.md) bundled into committed text files
 * that the console function serves (lib/routes/console.ts), like the compiled validators:
 * a Lambda bundle and `npm start` then need no build step. `npm run build-console` writes
 * them; test/functions/console-app.test.ts fails while they are stale.
 */

export const CONSOLE_DIR = "console";
export const CONSOLE_OUTPUTS = {
  script: join("lib", "compiled", "console-app.js.txt"),
  style: join("lib", "compiled", "console-app.css.txt"),
} as const;

function bundle(entry: string): string {
  const result = buildSync({
    entryPoints: [join(CONSOLE_DIR, entry)],
    bundle: true,
    minify: true,
    format: "esm",
    target: "es2022",
    platform: "browser",
    charset: "utf8",
    legalComments: "none",
    write: false,
    logLevel: "silent",
  });
  const [file] = result.outputFiles;
  if (!file) throw new Error(`esbuild wrote nothing for ${entry}`);
  return file.text;
}

/** What the build makes now, by path. */
export function consoleFiles(): Record<string, string> {
  return { [CONSOLE_OUTPUTS.script]: bundle("main.ts"), [CONSOLE_OUTPUTS.style]: bundle("style.css") };
}

/** Paths whose committed text differs from what the build makes now. */
export function staleConsoleFiles(): string[] {
  return staleFiles(consoleFiles());
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  for (const [path, text] of Object.entries(consoleFiles())) {
    writeFileSync(path, text);
    const kib = (bytes: number) => (bytes / 1024).toFixed(1);
    console.log(`${path}: ${kib(Buffer.byteLength(text))} KiB, ${kib(gzipSync(text).length)} KiB gzipped`);
  }
}
