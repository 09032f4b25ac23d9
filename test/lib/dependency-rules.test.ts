import { execFileSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";

/**
 * The layering rules of .dependency-cruiser.cjs only hold the line while each path they name
 * exists: a rule about a deleted or renamed file forbids nothing and reads as if it did.
 */

interface Rule {
  name: string;
  from: { path?: string | string[]; pathNot?: string | string[] };
  to: { path?: string | string[]; pathNot?: string | string[] };
}

const rules: Rule[] = createRequire(import.meta.url)("../../.dependency-cruiser.cjs").forbidden;

/** `^lib/(a|b)\.ts$` -> `^lib/a\.ts$`, `^lib/b\.ts$`: every alternative must name something on its own. */
function alternatives(pattern: string): string[] {
  const group = /\(([^()]*\|[^()]*)\)/.exec(pattern);
  if (!group) return [pattern];
  return group[1]
    .split("|")
    .flatMap((choice) =>
      alternatives(pattern.slice(0, group.index) + choice + pattern.slice(group.index + group[0].length)),
    );
}

const list = (value: string | string[] | undefined) => (value === undefined ? [] : [value].flat());

/** Tracked files, and the installed packages as `node_modules/<name>/` and `node_modules/@scope/<name>/`. */
function knownPaths(): string[] {
  const tracked = execFileSync("git", ["ls-files"], { encoding: "utf8" }).split("\n").filter(Boolean);
  const packages = readdirSync("node_modules").flatMap((name) =>
    name.startsWith("@")
      ? readdirSync(`node_modules/${name}`).map((inner) => `node_modules/${name}/${inner}/`)
      : [`node_modules/${name}/`],
  );
  return [...tracked, ...packages];
}

describe("dependency rules", () => {
  const paths = knownPaths();
  const named = rules.flatMap((rule) =>
    [rule.from.path, rule.from.pathNot, rule.to.path, rule.to.pathNot].flatMap(list).map((p) => ({ rule, p })),
  );

  it("expands each alternative of a pattern on its own", () => {
    expect(alternatives("^lib/(a|b)/x(c|d)$")).toEqual(["^lib/a/xc$", "^lib/a/xd$", "^lib/b/xc$", "^lib/b/xd$"]);
  });

  it("when a rule names a path, every alternative of it matches a file or package that exists", () => {
    const stale = named.flatMap(({ rule, p }) =>
      alternatives(p)
        .filter((alternative) => !paths.some((path) => new RegExp(alternative).test(path)))
        .map((alternative) => `${rule.name}: ${alternative}`),
    );
    expect(stale).toEqual([]);
  });

  it("guards the layers the architecture names: routes and http never reach the container or the store", () => {
    const forbids = (from: string, to: string) =>
      rules.some(
        (rule) =>
          list(rule.from.path).some((p) => new RegExp(p).test(from)) &&
          list(rule.to.path).some((p) => new RegExp(p).test(to)),
      );
    for (const from of ["lib/routes/devices.ts", "lib/http/pipeline.ts", "lib/http/middleware/bearer-token.ts"]) {
      expect(forbids(from, "lib/container.ts"), from).toBe(true);
      expect(forbids(from, "lib/store/sessions.ts"), from).toBe(true);
    }
    expect(forbids("lib/domain/devices/devices.ts", "lib/compiled/settings-validator.ts")).toBe(true);
    expect(forbids("lib/domain/devices/devices.ts", "lib/store/sessions.ts")).toBe(true);
  });
});
