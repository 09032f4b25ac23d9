import { readdirSync } from "node:fs";
import { join } from "node:path";
import type { ErrorObject, ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { RouteValidators } from "../../lib/http/request-state";
import { FUNCTION_NAMES } from "../../lib/http/route";
import { routes } from "../../lib/routes";
import { COMPILED_DIR, compiledModules, staleModules } from "../../scripts/compile-schemas";

describe("compiled schemas (lib/compiled)", () => {
  it("when lib/routes/ or lib/settings-schema.ts changes, the committed modules must be compiled again", () => {
    expect(staleModules(), "run npm run compile-schemas and commit lib/compiled").toEqual([]);
  });

  it("when a module is no longer generated, it is gone from the folder", () => {
    const made = Object.keys(compiledModules()).sort();
    const present = readdirSync(COMPILED_DIR)
      .filter((name) => name.endsWith(".ts"))
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

describe("compiled validators", () => {
  it("when given any value, each compiled route validator agrees with ajv compiling the same schema at run time", async () => {
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    (addFormats as unknown as (a: Ajv2020) => void)(ajv);
    let compared = 0;
    for (const fn of FUNCTION_NAMES) {
      const served = routes.filter((route) => route.fn === fn);
      if (served.length === 0) continue;
      const { validators } = (await import(`../../lib/compiled/${fn}-validators.ts`)) as {
        validators: Readonly<Record<string, RouteValidators>>;
      };
      for (const route of served) {
        const compiled = validators[route.id] ?? {};
        for (const part of ["params", "query", "body"] as const) {
          const schema = part === "body" ? route.request?.body?.schema : route.request?.[part];
          if (!schema) continue;
          const generated = compiled[part] as ValidateFunction;
          const reference = ajv.compile(schema);
          fc.assert(
            fc.property(valuesFor(schema), (value) => {
              const expected = reference(value);
              expect(generated(value), `${route.id} ${part} ${JSON.stringify(value)}`).toBe(expected);
              if (!expected) expect(keywordsOf(generated.errors)).toEqual(keywordsOf(reference.errors));
            }),
            { numRuns: 60, seed: 8 },
          );
          compared += 1;
        }
      }
    }
    expect(compared).toBeGreaterThan(50);
  });
});

function keywordsOf(errors: ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map((error) => `${error.instancePath} ${error.keyword} ${error.message}`);
}

/** Values near the schema (its own property names, strings and numbers) and anything at all. */
function valuesFor(schema: object): fc.Arbitrary<unknown> {
  const properties = Object.keys((schema as { properties?: object }).properties ?? {});
  const near = fc.dictionary(
    properties.length ? fc.constantFrom(...properties) : fc.string(),
    fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.string(), { maxLength: 3 })),
  );
  return fc.oneof(near, fc.anything());
}
