import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { seedAccount, systemBearer } from "../support/fixtures";
import { request } from "../support/requests";
import { startTally } from "../support/tally";

/**
 * Overlapping PUT and DELETE /svc/api/v3/rights on one pair: whatever the interleaving,
 * the stored tags are those of some sequential order of the calls, and both directions
 * (rights of, rights on) agree.
 */

const TAGS = ["a", "b", "c"];
const tally = startTally(import.meta.filename);

interface Operation {
  kind: "assign" | "revoke";
  tags: string[];
}

const operation: fc.Arbitrary<Operation> = fc.record({
  kind: fc.constantFrom("assign" as const, "revoke" as const),
  tags: fc.subarray(TAGS, { minLength: 1 }),
});

function permutations<T>(items: T[]): T[][] {
  if (items.length <= 1) return [items];
  return items.flatMap((item, i) =>
    permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]),
  );
}

function applyInOrder(initial: string[], order: Operation[]): string {
  const tags = new Set(initial);
  for (const op of order) for (const tag of op.tags) op.kind === "assign" ? tags.add(tag) : tags.delete(tag);
  return [...tags].sort().join(",");
}

describe("concurrent rights changes", () => {
  it("when assignments and revocations of one right overlap, the result is that of some sequential order", async () => {
    const token = await systemBearer(["svc_rights_full_access"]);
    await fc.assert(
      fc.asyncProperty(fc.subarray(TAGS), fc.array(operation, { minLength: 2, maxLength: 4 }), async (initial, ops) => {
        const lead = await seedAccount({ email: undefined, phone_number: undefined });
        const member = await seedAccount({ email: undefined, phone_number: undefined });
        const pair = { subject: lead.sub, object: member.sub, rights: ["SYS_MON"] };
        const call = (op: Operation) =>
          request(
            "rights",
            op.kind === "assign" ? "events/rights/assign-rights.json" : "events/rights/revoke-tag.json",
            {
              body: { ...pair, tags: op.tags },
              authorization: token,
            },
          );
        if (initial.length > 0) expect((await call({ kind: "assign", tags: initial })).statusCode).toBe(204);

        const results = await Promise.all(ops.map(call));
        for (const r of results) tally.answered(r.statusCode);
        expect(results.map((r) => r.statusCode)).toEqual(ops.map(() => 204));

        const of = await request("rights", "events/rights/rights-of-user.json", {
          params: { subjectId: lead.sub },
          authorization: token,
        });
        const on = await request("rights", "events/rights/rights-on-user.json", {
          params: { subjectId: member.sub },
          authorization: token,
        });
        const stored = ((of.json[member.sub] as Record<string, string[]> | undefined)?.SYS_MON ?? []).sort().join(",");
        const explanations = new Set(permutations(ops).map((order) => applyInOrder(initial, order)));
        await tally.invariant(() => {
          expect(explanations, `stored tags "${stored}"`).toContain(stored);
          expect(on.json).toEqual(stored === "" ? {} : { [lead.sub]: ["SYS_MON"] });
        });
      }),
      { seed: 20261121, numRuns: 15 },
    );
  });
});
