import { describe, expect, it } from "vitest";
import {
  applyMeasured,
  type CodeFacts,
  concurrency,
  DEFAULT_SCENARIO,
  DEFAULT_WORKLOAD,
  derivedCosts,
  modelSize,
  monthlyCost,
  monthlyRequests,
  peakRps,
  type RequestCost,
  type RequestKind,
  SECONDS_PER_MONTH,
} from "../../scripts/load-model/model";
import { organizationOperations, organizationPartition } from "../../scripts/load-model/organization";

const FACTS: CodeFacts = {
  stageThrottle: { rateLimit: 100, burstLimit: 200 },
  clientCacheSeconds: 10,
  keyRingCacheSeconds: 60,
  addressHourlyCap: 300,
  inactivityShards: 8,
  membersPerPage: 1000,
  memory: { hashing: 1769, plain: 1024 },
};

const cost = (fn: string, rcu: number, wcu: number, billedMs: number, memoryMb: number): RequestCost => ({
  route: fn,
  fn,
  rcu,
  wcu,
  billedMs,
  memoryMb,
  source: "derived",
});

// Round figures, so every expected value below is worked out by hand.
const SMALL: Record<RequestKind, RequestCost> = {
  signIn: cost("token", 2, 4, 500, 2048),
  clientCredentials: cost("token", 0, 0, 100, 1024),
  apiRead: cost("users", 1, 1, 100, 1024),
  refresh: cost("token", 1, 1, 100, 1024),
};

describe("load model", () => {
  it("counts a small workload's requests and cost by hand", () => {
    const monthly = monthlyRequests({
      monthlyActiveUsers: 1000,
      signInsPerUserPerMonth: 2,
      clientCredentialsPerClientPerHour: 10,
      clients: 1,
      apiReadsPerSignIn: 3,
      refreshesPerUserPerMonth: 0,
      peakToAverage: 2,
    });
    // 1,000 x 2; 1 x 10 x 730 hours; 2,000 x 3; none.
    expect(monthly).toEqual({ signIn: 2000, clientCredentials: 7300, apiRead: 6000, refresh: 0 });

    const c = monthlyCost(monthly, SMALL);
    // RRU 2,000x2 + 6,000 = 10,000 at $0.125/M; WRU 2,000x4 + 6,000 = 14,000 at $0.625/M.
    expect(c.dynamoDb).toBeCloseTo(0.00125 + 0.00875, 10);
    // GB-s: 2,000x0.5x2 + 7,300x0.1x1 + 6,000x0.1x1 = 3,330 at $0.0000133334; 15,300 requests at $0.20/M.
    expect(c.lambda).toBeCloseTo(3330 * 0.0000133334 + 0.00306, 10);
    // 15,300 requests at $1.00/M.
    expect(c.apiGateway).toBeCloseTo(0.0153, 10);
  });

  it("takes the peak from the monthly average and concurrency by Little's law", () => {
    const rps = peakRps({ signIn: SECONDS_PER_MONTH, clientCredentials: 0, apiRead: 0, refresh: 0 }, 2);
    expect(rps.signIn).toBeCloseTo(2, 10);
    // token: 10 x 0.5 s + 100 x 0.1 s; users: 50 x 0.1 s.
    expect(concurrency({ signIn: 10, clientCredentials: 100, apiRead: 50, refresh: 0 }, SMALL)).toEqual({
      token: 15,
      users: 5,
    });
  });

  it("bills HTTP API requests past 300 million a month at the lower rate", () => {
    const result = monthlyCost({ signIn: 0, clientCredentials: 400e6, apiRead: 0, refresh: 0 }, SMALL);
    expect(result.apiGateway).toBeCloseTo(300 + 90, 6);
  });

  it("flags nothing at 10 thousand users but the quotas 100 million reach", () => {
    const costs = derivedCosts(FACTS.memory);
    const workload = { ...DEFAULT_WORKLOAD, monthlyActiveUsers: 0 };
    const small = modelSize(workload, 10_000, costs, DEFAULT_SCENARIO, FACTS);
    expect(small.quotas.filter((q) => q.exceeded)).toEqual([]);

    const big = modelSize(workload, 100_000_000, costs, DEFAULT_SCENARIO, FACTS);
    const hit = big.quotas.filter((q) => q.exceeded).map((q) => q.name);
    for (const expected of [
      /stage throttle/,
      /HTTP API account throttle/,
      /Lambda concurrent executions/,
      /table read throughput/,
      /table write throughput/,
    ]) {
      expect(
        hit.some((name) => expected.test(name)),
        String(expected),
      ).toBe(true);
    }
    // A back end trusted to relay spreads its users' counters, and caching keeps the client cool.
    const byKey = new Map(big.hotKeys.map((h) => [h.key, h]));
    expect(byKey.get("IPFAIL#<application server> HOUR#<h>")).toMatchObject({ overPartition: false });
    expect(byKey.get("IPFAIL#<application server> HOUR#<h>")?.wcuPerSecond).toBeLessThan(1);
    expect(hit.some((name) => /partition writes/.test(name))).toBe(false);
    expect(byKey.get("CLIENT#<id>")?.overPartition).toBe(false);
    expect(byKey.get("SIGNING_KEYS")?.rcuPerSecond).toBeLessThan(100);
    // A million members are listed a page at a time: 1,000 members of 120 bytes (30 RCU) and the head.
    const group = big.hotKeys.find((h) => h.route === "groups.members");
    expect(group).toMatchObject({ rcuPerSecond: 31, overPartition: false });
  });

  it("takes measured figures where the file names the route, and keeps the rest derived", () => {
    const { costs, used } = applyMeasured(derivedCosts(FACTS.memory), {
      routes: { "users.get, user": { rcu: 1.5, wcu: 1, billedMsWarm: 12, memoryMb: 1024 } },
    });
    expect(used).toEqual(["apiRead"]);
    expect(costs.apiRead).toMatchObject({ rcu: 1.5, billedMs: 12, source: "measured" });
    expect(costs.signIn.source).toBe("derived");
  });
});

describe("one big organization (docs/organizations.md Scale)", () => {
  const facts = { membersPerPage: 100, rolesPerMember: 1 };

  it("when members join, the writes land in the organization's own partition, and its record's check in GROUPS#org", () => {
    const [page, add, remove, claims, homeRealm] = organizationOperations(facts);
    // 100 member items (13 KB) and 100 holders (20 KB), consistent: 4 + 5 RCU in the organization's partition.
    expect([page.orgPartitionRcu, page.orgPartitionWcu]).toEqual([9, 0]);
    // Member + one holder, transactional: 2 + 2 WCU; the record's ConditionCheck: 2 WCU elsewhere.
    expect([add.orgPartitionWcu, add.profilePartitionWcu]).toEqual([4, 2]);
    expect(remove.orgPartitionWcu).toBe(4);
    // Tokens read the member's own partition only.
    expect([claims.rcu, claims.orgPartitionRcu]).toEqual([2, 0]);
    expect(homeRealm.rcu).toBe(0.5);
  });

  it("when 100,000 members join within an hour, no partition is over its limit; 300 joins a second would be", () => {
    const hour = organizationPartition(facts, { members: 100_000, joinsPerSecond: 100_000 / 3600, pagesPerSecond: 1 });
    expect(hour.overPartition).toBe(false);
    expect(hour.wholeListing.pages).toBe(1000);
    expect(hour.maxJoinsPerSecond).toBe(250);
    expect(hour.maxChangesAcrossOrganizations).toBe(500);
    const wave = organizationPartition(facts, { members: 100_000, joinsPerSecond: 300, pagesPerSecond: 0 });
    expect(wave.overPartition).toBe(true);
  });
});
