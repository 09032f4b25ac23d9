import { afterEach, beforeEach, vi } from "vitest";
import { setEnvDefaults } from "../../lib/config";

/** Tests run silent; this turns log lines on at `level` for each test of the enclosing describe, and back off after. */
export function useLogLevel(level: "info" | "warn"): void {
  const quiet = process.env.LOG_LEVEL;
  beforeEach(() => {
    process.env.LOG_LEVEL = level;
    setEnvDefaults({});
  });
  afterEach(() => {
    vi.restoreAllMocks();
    if (quiet === undefined) delete process.env.LOG_LEVEL;
    else process.env.LOG_LEVEL = quiet;
    setEnvDefaults({});
  });
}

/** The JSON log lines a spied stream was given. */
export function linesOf(spy: { mock: { calls: unknown[][] } }) {
  return spy.mock.calls.map(([text]) => JSON.parse(String(text)) as Record<string, unknown>);
}
