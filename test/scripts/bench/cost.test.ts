import { describe, expect, it } from "vitest";
import { billedMs, cognitoPerToken, flowCost, requestCost } from "../../../scripts/bench/cost";
import { PRICES, type Prices } from "../../../scripts/bench/prices";

/** Round prices, so every figure below can be checked by hand. */
const PRICES_FOR_TEST: Prices = {
  ...PRICES,
  dynamodb: { perMillionReadUnits: 0.25, perMillionWriteUnits: 1 },
  lambda: { perGbSecondArm: 0.00001, perMillionRequests: 0.2 },
  apiGateway: { httpApiPerMillionRequests: 1 },
  cognito: { m2mPerThousandTokenRequests: 2, m2mAppClientPerMonth: 6, essentialsPerMau: 0.015 },
};

describe("cost arithmetic (scripts/bench/cost.ts)", () => {
  it("when a request reads 2 units, writes 4 and runs 99.2 ms at 1,024 MB, each service's part is its units times its price", () => {
    const cost = requestCost({ rcu: 2, wcu: 4, durationMs: 99.2, memoryMb: 1024 }, PRICES_FOR_TEST);
    // 2 x 0.25/M + 4 x 1/M
    expect(cost.dynamodb).toBeCloseTo(4.5e-6, 12);
    // 100 ms billed x 1 GB x 0.00001 + 0.2/M
    expect(cost.lambda).toBeCloseTo(1e-6 + 0.2e-6, 12);
    expect(cost.apiGateway).toBeCloseTo(1e-6, 12);
    expect(cost.total).toBeCloseTo(6.7e-6, 12);
  });

  it("when a function has 2,048 MB, its duration costs twice as much per ms", () => {
    const small = requestCost({ rcu: 0, wcu: 0, durationMs: 10, memoryMb: 1024 }, PRICES_FOR_TEST);
    const large = requestCost({ rcu: 0, wcu: 0, durationMs: 10, memoryMb: 2048 }, PRICES_FOR_TEST);
    expect(large.lambda - 0.2e-6).toBeCloseTo(2 * (small.lambda - 0.2e-6), 15);
  });

  it("when the duration has a fraction of a millisecond, Lambda's 1 ms step rounds it up, and nothing bills under 1 ms", () => {
    expect([billedMs(0.2), billedMs(1), billedMs(1.01), billedMs(364.5)]).toEqual([1, 1, 2, 365]);
  });

  it("when a flow has two requests, it costs their sum, API Gateway and Lambda requests counted twice", () => {
    const post = { rcu: 1, wcu: 2, durationMs: 400, memoryMb: 1769 };
    const exchange = { rcu: 0.5, wcu: 4, durationMs: 3, memoryMb: 1769 };
    const flow = flowCost([post, exchange], PRICES_FOR_TEST);
    const parts = [requestCost(post, PRICES_FOR_TEST), requestCost(exchange, PRICES_FOR_TEST)];
    expect(flow.total).toBeCloseTo(parts[0].total + parts[1].total, 15);
    expect(flow.apiGateway).toBeCloseTo(2e-6, 15);
  });

  it("when Cognito M2M costs $2 per 1,000 token requests, one token costs $0.002", () => {
    expect(cognitoPerToken(PRICES_FOR_TEST)).toBeCloseTo(0.002, 12);
  });
});
