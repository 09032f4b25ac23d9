import { appendFileSync, mkdirSync } from "node:fs";
import { basename, join } from "node:path";
import { afterAll } from "vitest";

/**
 * What a reliability test file did, for the bench's reliability table (issue 8 item 7):
 * one JSON line per file and run in `.bench/reliability/<file>.jsonl` (gitignored),
 * written when the file ends, so a test that failed still reports what it saw.
 */

export interface TallyFigures {
  requests: number;
  faults: number;
  badInputs: number;
  serverErrors: number;
  invariantsChecked: number;
  invariantsBroken: number;
}

export const TALLY_DIR = join(".bench", "reliability");

export function startTally(testFile: string) {
  const figures: TallyFigures = {
    requests: 0,
    faults: 0,
    badInputs: 0,
    serverErrors: 0,
    invariantsChecked: 0,
    invariantsBroken: 0,
  };
  afterAll(() => {
    mkdirSync(TALLY_DIR, { recursive: true });
    const file = basename(testFile).replace(/\.test\.ts$/, "");
    appendFileSync(
      join(TALLY_DIR, `${file}.jsonl`),
      `${JSON.stringify({ file, at: new Date().toISOString(), ...figures })}\n`,
    );
  });
  return {
    figures,
    /** One request answered. Only 500 is a server error: 502 and 503 are designed answers to faults. */
    answered(status: number, count = 1): void {
      figures.requests += count;
      if (status === 500) figures.serverErrors += count;
    },
    badInput(count = 1): void {
      figures.badInputs += count;
    },
    fault(count = 1): void {
      figures.faults += count;
    },
    /** Runs an invariant's assertions; a throw counts as broken and is rethrown. */
    async invariant(check: () => unknown | Promise<unknown>): Promise<void> {
      figures.invariantsChecked += 1;
      try {
        await check();
      } catch (error) {
        figures.invariantsBroken += 1;
        throw error;
      }
    },
  };
}

export type Tally = ReturnType<typeof startTally>;
