import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sampleCandidates } from "../../../scripts/bench/cold-start";
import type { RoundTripRow } from "../../../scripts/bench/round-trips";

function row(route: string, sample: string, ok: boolean): RoundTripRow {
  return { id: route, route, mode: "system", sample, status: ok ? 200 : 404, ok };
}

describe("cold-start samples (scripts/bench/cold-start.ts)", () => {
  it("when a function's samples answered in the round-trip run, its reads come first, then the rest in run order, failures left out", () => {
    const rows = [
      row("POST /svc/api/v2/grps", "events/groups/create-group.json", true),
      row("GET /svc/api/v2/grps/{groupId}", "events/groups/get-group.json", true),
      row("GET /svc/api/v2/grps", "events/groups/list-groups.json", false),
      row("DELETE /svc/api/v2/grps/{groupId}", "events/groups/delete-group.json", true),
      row("GET /svc/api/v2/grps/{groupId}", "events/groups/get-group.json", true),
      row("GET /svc/api/v3/users/{subjectId}", "events/users/get-user-system.json", true),
    ];
    expect(sampleCandidates("groups", rows)).toEqual([
      "events/groups/get-group.json",
      "events/groups/create-group.json",
      "events/groups/delete-group.json",
    ]);
  });

  it("when none of a function's samples answered, the first of its directory is the one candidate", () => {
    const dir = mkdtempSync(join(tmpdir(), "cold-samples-"));
    writeFileSync(join(dir, "b.json"), "{}");
    writeFileSync(join(dir, "notes.md"), "");
    expect(sampleCandidates("jobs", [row("GET /x", `${dir}/a.json`, false)], dir)).toEqual([join(dir, "b.json")]);
  });
});
