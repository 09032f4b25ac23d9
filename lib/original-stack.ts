import { readFileSync } from "node:fs";
import { SourceMap } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";

/**
 * Stack traces of the deployed bundles, told in the TypeScript sources' lines.
 *
 * `--enable-source-maps` would do it, but Node then reads and parses every bundle's map
 * (about 900 KiB) while importing it: 25 ms of every cold start, for traces that only a
 * 500 ever logs. Here the map beside a bundle (esbuild's `<bundle>.map`) is read the first
 * time an error is logged, once per container, with Node's own `SourceMap`.
 */

/** A frame's location in a bundle: `file:///var/task/index.mjs:1:23456`. */
const BUNDLE_FRAME = /(file:\/\/\/[^\s()]+?\.[cm]?js):(\d+):(\d+)/g;

// A bundle without a map beside it is remembered too, so it is looked for once.
const maps = new Map<string, SourceMap | undefined>();

function mapOf(bundleUrl: string): SourceMap | undefined {
  if (!maps.has(bundleUrl)) {
    let map: SourceMap | undefined;
    try {
      map = new SourceMap(JSON.parse(readFileSync(`${fileURLToPath(bundleUrl)}.map`, "utf8")));
    } catch {
      map = undefined;
    }
    maps.set(bundleUrl, map);
  }
  return maps.get(bundleUrl);
}

function originalLocation(bundleUrl: string, line: number, column: number): string | undefined {
  const map = mapOf(bundleUrl);
  if (!map) return undefined;
  const origin = map.findOrigin(line, column);
  if (!("fileName" in origin)) return undefined;
  // Sources are named relative to the map, as Node resolves them with --enable-source-maps.
  const source = fileURLToPath(new URL(origin.fileName, pathToFileURL(`${fileURLToPath(bundleUrl)}.map`)));
  return `${source}:${origin.lineNumber}:${origin.columnNumber}`;
}

/** The stack with every bundle frame that has a mapping moved to its source; others stay. */
export function originalStack(stack: string | undefined): string | undefined {
  if (stack === undefined) return undefined;
  return stack.replace(
    BUNDLE_FRAME,
    (frame, url: string, line: string, column: string) => originalLocation(url, Number(line), Number(column)) ?? frame,
  );
}
