import { describe, expect, it } from "vitest";
import { routeKey } from "../../lib/http/route";
import { routes } from "../../lib/routes";
import { forgedTokens } from "../support/forged-tokens";
import { request } from "../support/requests";
import { expectVersionShape, firstSampleOfEachRoute, PLACEHOLDER_VALUES } from "../support/route-samples";

/** Every forged token of test/support/forged-tokens.ts against every bearer route: all 401. */

describe("forged tokens over every bearer route", () => {
  const samples = firstSampleOfEachRoute();
  for (const route of routes.filter((r) => r.auth.includes("bearer"))) {
    const sample = samples.get(routeKey(route));
    if (!sample) continue;
    it(`when ${route.id} gets a forged bearer token, it answers 401 in the ${route.version} shape`, async () => {
      const scopes = [...(route.permissions?.system ?? []), ...(route.permissions?.user ?? [])].join(" ");
      for (const [kind, token] of Object.entries(await forgedTokens(scopes))) {
        const result = await request(route.fn, sample, {
          values: PLACEHOLDER_VALUES,
          authorization: `Bearer ${token}`,
        });
        expect(result.statusCode, `${kind}: ${result.body}`).toBe(401);
        expectVersionShape(route.version, result.statusCode, result.json);
      }
    });
  }
});
