import type { APIGatewayProxyEventV2 } from "aws-lambda";
import { decodeProtectedHeader } from "jose";
import { describe, expect, it } from "vitest";
import { requestChecks, services } from "../../../../lib/container";
import { keyWarmUp } from "../../../../lib/http/middleware/key-warm-up";
import type { SvcContext } from "../../../../lib/http/request-state";
import type { RouteDefinition } from "../../../../lib/http/route";
import { systemToken } from "../../../support/fixtures";
import { spentBy } from "../../../support/round-trips";

/** Runs the warm-up's `before` for a request on a route of `auth` kind, on a container that holds no keys. */
async function warmUpOnColdContainer(auth: RouteDefinition["auth"], authorization: string | undefined) {
  services().keyRing.invalidate();
  const request = {
    event: { headers: authorization ? { authorization } : {} } as unknown as APIGatewayProxyEventV2,
    context: { svc: { route: { auth }, requestId: "r", params: {}, query: {} } } as unknown as SvcContext,
    response: undefined,
    error: undefined,
    internal: {},
  };
  return keyWarmUp(requestChecks()).before?.(request as never);
}

describe("key warm-up middleware", () => {
  it("when a bearer call reaches a cold container, the keys are on their way before authentication asks for them", async () => {
    const token = await systemToken(["svc_groups"]);
    const kid = decodeProtectedHeader(token).kid as string;
    const spent = await spentBy(async () => {
      const answer = await warmUpOnColdContainer("bearer", `Bearer ${token}`);
      // It never answers for the route.
      expect(answer).toBeUndefined();
      // Authentication then finds the read already made: one read in all.
      return services().keyRing.verificationKey(kid, "ES256");
    });
    expect(spent.result).toBeDefined();
    expect(spent.reads).toBe(1);
  });

  it("when the call carries no bearer token or the route takes none, nothing is read", async () => {
    const spent = await spentBy(async () => {
      await warmUpOnColdContainer("bearer", undefined);
      await warmUpOnColdContainer("bearer-or-basic", "Basic YXBwOnNlY3JldA==");
      await warmUpOnColdContainer("client", "Bearer abc");
      await warmUpOnColdContainer("none", "Bearer abc");
      await new Promise((done) => setTimeout(done, 20));
    });
    expect(spent.total).toBe(0);
  });
});
