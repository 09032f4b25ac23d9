import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { routeKey } from "../../lib/http/route";
import { routes } from "../../lib/routes";
import { request } from "../support/requests";
import { expectVersionShape, firstSampleOfEachRoute, PLACEHOLDER_VALUES } from "../support/route-samples";

/**
 * Bad input over every route of the table: each route's first sample event with its
 * body, path parameters or headers replaced by generated garbage. Never a 500, and every
 * error in the shape of the route's version. Fixed seed, few runs per route.
 */

const SEED = 20261121;
const RUNS_PER_ROUTE = 20;

const nasty = fc.oneof(
  fc.string({ unit: "grapheme", maxLength: 40 }),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.constantFrom("../../etc/passwd", "..%2F..%2Fetc", "%00", "\u0000", "\ud800", "\u202e", "a\r\nset-cookie: x=1", ""),
  fc.integer({ min: 1000, max: 20_000 }).map((n) => "é".repeat(n)),
);

/** Deep nesting as text: fast-check could not print the value itself when reporting it. */
function deep(levels: number): string {
  return `${'{"a":['.repeat(levels)}1${"]}".repeat(levels)}`;
}

const badBody = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 6 }),
  nasty,
  fc.integer({ min: 50, max: 5000 }).map(deep),
  fc.constantFrom("{", "[1,", "null", '""', '{"__proto__":{"admin":true}}', "grant_type=%ZZ&&=="),
);

function isWellFormed(text: string): boolean {
  try {
    encodeURIComponent(text);
    return true;
  } catch {
    return false;
  }
}

type Change =
  | { kind: "body"; body: unknown }
  | { kind: "params"; value: string }
  | { kind: "header"; name: string; value: string };

const change: fc.Arbitrary<Change> = fc.oneof(
  badBody.map((body) => ({ kind: "body" as const, body })),
  // A path reaches API Gateway as UTF-8: lone surrogates cannot be sent at all.
  nasty.filter(isWellFormed).map((value) => ({ kind: "params" as const, value })),
  fc
    .tuple(fc.constantFrom("authorization", "x-forwarded-for", "user-agent", "content-type", "accept-language"), nasty)
    .map(([name, value]) => ({ kind: "header" as const, name, value })),
);

describe("bad input over every route", () => {
  const samples = firstSampleOfEachRoute();
  for (const route of routes) {
    const sample = samples.get(routeKey(route));
    if (!sample) continue;
    it(`when ${route.id} gets bad input, it never answers 500 and keeps the ${route.version} error shape`, async () => {
      await fc.assert(
        fc.asyncProperty(change, async (bad) => {
          const params = Object.fromEntries(
            Object.keys(JSON.parse(readFileSync(sample, "utf8")).pathParameters ?? {}).map((name) => [
              name,
              bad.kind === "params" ? bad.value : "x",
            ]),
          );
          const result = await request(route.fn, sample, {
            values: PLACEHOLDER_VALUES,
            ...(bad.kind === "body" && { body: bad.body }),
            ...(bad.kind === "params" && Object.keys(params).length > 0 && { params }),
            ...(bad.kind === "header" && { headers: { [bad.name]: bad.value } }),
          });
          expect(result.statusCode, result.body).toBeLessThan(500);
          expectVersionShape(route.version, result.statusCode, result.json);
        }),
        { seed: SEED, numRuns: RUNS_PER_ROUTE },
      );
    });
  }
});
