import { describe, expect, it } from "vitest";
import { ALL_PERMISSIONS } from "../../lib/domain/permissions";
import { type RouteDefinition, routeKey } from "../../lib/http/route";
import { routes } from "../../lib/routes";
import { systemToken, userToken } from "../support/fixtures";
import { expiredToken, forgedTokens } from "../support/forged-tokens";
import { request } from "../support/requests";
import { expectVersionShape, firstSampleOfEachRoute, PLACEHOLDER_VALUES } from "../support/route-samples";
import { startTally } from "../support/tally";

/**
 * Every forged token of test/support/forged-tokens.ts against every bearer route, and
 * real tokens that must not open the route: expired, a scope that does not cover it, and
 * a user token of another account on routes that act on one account. All 401.
 */

const tally = startTally(import.meta.filename);

function routeScopes(route: RouteDefinition): string[] {
  return [...(route.permissions?.system ?? []), ...(route.permissions?.user ?? [])];
}

/** Genuine tokens that still must be refused by this route. */
async function wrongRealTokens(route: RouteDefinition): Promise<Record<string, string>> {
  const tokens: Record<string, string> = { expired: await expiredToken(routeScopes(route).join(" ")) };
  if (route.permissions) {
    const accepted = new Set(routeScopes(route).map((name) => name.replace(/\{[^}]+\}/g, "")));
    const unrelated = ALL_PERMISSIONS.filter((p) => ![...accepted].some((a) => p.startsWith(a)));
    tokens["system token with a scope that does not cover the route"] = await systemToken(unrelated.slice(0, 3));
    tokens["user token with a scope that does not cover the route"] = await userToken(
      "sample-user",
      unrelated.slice(0, 3),
    );
  }
  if (route.subject && route.permissions?.user?.length) {
    tokens["user token of another account"] = await userToken("another-user", [...route.permissions.user]);
  }
  return tokens;
}

describe("forged and misused tokens over every bearer route", () => {
  const samples = firstSampleOfEachRoute();
  for (const route of routes.filter((r) => r.auth.includes("bearer"))) {
    const sample = samples.get(routeKey(route));
    if (!sample) continue;
    it(`when ${route.id} gets a forged or misused bearer token, it answers 401 in the ${route.version} shape`, async () => {
      const tokens = { ...(await forgedTokens(routeScopes(route).join(" "))), ...(await wrongRealTokens(route)) };
      for (const [kind, token] of Object.entries(tokens)) {
        const result = await request(route.fn, sample, {
          values: PLACEHOLDER_VALUES,
          authorization: `Bearer ${token}`,
        });
        tally.answered(result.statusCode);
        tally.badInput();
        await tally.invariant(() => {
          expect(result.statusCode, `${kind}: ${result.body}`).toBe(401);
          expectVersionShape(route.version, result.statusCode, result.json, result.body);
        });
      }
    });
  }
});
