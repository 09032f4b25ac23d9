import { readFileSync } from "node:fs";

/** Paths whose committed text differs from what a generator makes now (`files`: path to text). */
export function staleFiles(files: Record<string, string>): string[] {
  return Object.entries(files)
    .filter(([path, text]) => {
      try {
        return readFileSync(path, "utf8") !== text;
      } catch {
        return true;
      }
    })
    .map(([path]) => path);
}
