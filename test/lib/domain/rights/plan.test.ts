import { describe, expect, it } from "vitest";
import { partyKey, partyOfKey } from "../../../../lib/domain/rights/parties";
import {
  builtinKindProblem,
  grantId,
  mergeChanges,
  planChanges,
  type ReadGrants,
  type RightChange,
  worstCaseItems,
} from "../../../../lib/domain/rights/plan";

const lead = { kind: "user" as const, id: "lead" };
const sub = { kind: "user" as const, id: "sub" };
const app = { kind: "its" as const, id: "billing" };
const org = { kind: "grps" as const, id: "acme", profile: "org" };

function change(over: Partial<RightChange>): RightChange {
  return { subject: lead, object: sub, right: "SYS_MON", add: [], remove: [], ...over };
}

function read(entries: Array<[RightChange, { tags: string[]; rev: number } | null]>): ReadGrants {
  return new Map(entries.map(([c, state]) => [grantId(c), state]));
}

describe("party keys (interface §2.4)", () => {
  it("when written and read back, each kind has its key", () => {
    expect([lead, app, org].map(partyKey)).toEqual(["lead", "its|billing", "grps|acme|org"]);
    expect(partyOfKey("its|billing")).toEqual(app);
    expect(partyOfKey("grps|acme|org")).toEqual(org);
    expect(partyOfKey("lead")).toEqual(lead);
    expect(partyOfKey("grps|acme")).toBeUndefined();
    expect(partyOfKey("x|y")).toBeUndefined();
  });
});

describe("planning right changes", () => {
  it("when tags are only added, it writes without reading", () => {
    const adding = change({ add: ["a"] });
    const plan = planChanges([adding], new Map());
    expect(plan.writes).toEqual([{ subject: lead, object: sub, right: "SYS_MON", op: "add", tags: ["a"] }]);
    expect(plan.outcome).toEqual([]);
  });

  it("when some tags are revoked and others remain, the right stays with the rest", () => {
    const revoking = change({ remove: ["a"] });
    const plan = planChanges([revoking], read([[revoking, { tags: ["a", "b"], rev: 4 }]]));
    expect(plan.writes).toEqual([
      { subject: lead, object: sub, right: "SYS_MON", op: "put", tags: ["b"], expectedRev: 4 },
    ]);
    expect(plan.outcome[0].tags).toEqual(["b"]);
  });

  it("when the last tag is revoked, the right is deleted, guarded by the revision read", () => {
    const revoking = change({ remove: ["a", "b"] });
    const plan = planChanges([revoking], read([[revoking, { tags: ["a", "b"], rev: 2 }]]));
    expect(plan.writes).toEqual([{ subject: lead, object: sub, right: "SYS_MON", op: "delete", expectedRev: 2 }]);
    expect(plan.outcome[0].tags).toEqual([]);
  });

  it("when a right is revoked whole, every tag goes", () => {
    const revoking = change({ removeAll: true });
    const plan = planChanges([revoking], read([[revoking, { tags: ["a", "b"], rev: 1 }]]));
    expect(plan.writes[0]).toMatchObject({ op: "delete" });
  });

  it("when revoking what is not held, nothing is written but the parties are still checked", () => {
    const revoking = change({ remove: ["a"] });
    const plan = planChanges([revoking], read([[revoking, null]]));
    expect(plan.writes).toEqual([]);
    expect(plan.checks).toEqual([
      { kind: "party", party: lead },
      { kind: "party", party: sub },
    ]);
  });

  it("when delete and update name the same right, delete applies first and the union is written once", () => {
    const merged = mergeChanges([change({ remove: ["a", "c"] }), change({ add: ["c", "d"] })]);
    expect(merged).toHaveLength(1);
    const plan = planChanges(merged, read([[merged[0], { tags: ["a", "b"], rev: 7 }]]));
    expect(plan.writes).toEqual([
      { subject: lead, object: sub, right: "SYS_MON", op: "put", tags: ["b", "c", "d"], expectedRev: 7 },
    ]);
  });

  it("when a grant was read as absent and gets tags, the put requires it still absent", () => {
    const adding = change({ add: ["a"] });
    const plan = planChanges([adding], read([[adding, null]]));
    expect(plan.writes[0]).toMatchObject({ op: "put", tags: ["a"], expectedRev: undefined });
  });

  it("when nothing changes for a grant that was read, nothing is written", () => {
    const adding = change({ add: ["a"] });
    expect(planChanges([adding], read([[adding, { tags: ["a"], rev: 1 }]])).writes).toEqual([]);
  });

  it("when custom rights are assigned, the catalogue is checked with every kind they are given to", () => {
    const plan = planChanges(
      [change({ right: "BILLING", add: ["x"] }), change({ subject: app, object: org, right: "BILLING", add: ["y"] })],
      new Map(),
    );
    expect(plan.checks.filter((c) => c.kind === "right")).toEqual([
      { kind: "right", right: "BILLING", subjectTypes: ["user", "its"], objectTypes: ["user", "grps"] },
    ]);
  });

  it("when a custom right is revoked where it is held, the catalogue is not asked", () => {
    const revoking = change({ right: "GONE", remove: ["x"] });
    const held = planChanges([revoking], read([[revoking, { tags: ["x"], rev: 1 }]]));
    expect(held.checks.some((c) => c.kind === "right")).toBe(false);
    const notHeld = planChanges([revoking], read([[revoking, null]]));
    expect(notHeld.checks).toContainEqual({ kind: "right", right: "GONE", subjectTypes: [], objectTypes: [] });
  });

  it("when a built-in right is given to a kind it does not apply to, it is refused before any storage call", () => {
    expect(builtinKindProblem(change({ right: "change_password", object: org, add: ["x"] }))).toMatchObject({
      error: "unknown_right",
      details: { params: { right: "change_password", subjectType: "user", objectType: "grps" } },
    });
    expect(builtinKindProblem(change({ right: "change_password", add: ["x"] }))).toBeUndefined();
    // Revoking needs no fit: a grant made under other rules can always be removed.
    expect(builtinKindProblem(change({ right: "change_password", object: org, remove: ["x"] }))).toBeUndefined();
  });

  it("when counting, it budgets two items per grant plus the checks", () => {
    expect(worstCaseItems([change({ add: ["a"] }), change({ right: "CUSTOM", add: ["a"] })])).toBe(2 + 1 + 4);
  });
});
