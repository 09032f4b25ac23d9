import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { COMPILED_DIR, compiledModules, staleModules } from "../../scripts/compile-schemas";

describe("compiled schemas (lib/compiled)", () => {
  it("when lib/routes.ts or lib/settings-schema.ts changes, the committed modules must be compiled again", () => {
    expect(staleModules(), "run npm run compile-schemas and commit lib/compiled").toEqual([]);
  });

  it("when a module is no longer generated, it is gone from the folder", () => {
    const made = Object.keys(compiledModules()).sort();
    const present = readdirSync(COMPILED_DIR)
      .map((name) => join(COMPILED_DIR, name))
      .sort();
    expect(present).toEqual(made);
  });

  it("when a module is generated, it requires nothing at run time: every runtime helper is an import", () => {
    for (const text of Object.values(compiledModules())) {
      expect(text).not.toMatch(/\brequire\(/);
      // Type imports are erased; a value import of ajv itself would bring its compiler back.
      expect(text).not.toMatch(/^import (?!type )[^\n]* from "ajv(\/dist\/2020(\.js)?)?";/m);
    }
  });
});
