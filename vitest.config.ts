import { readFileSync } from "node:fs";
import { defineConfig, type Plugin } from "vitest/config";

/**
 * A `.txt` import is the file's text, as esbuild's `text` loader makes it in the bundles
 * (Vite would otherwise hand out an asset URL). Runs before Vite's own asset plugin.
 */
function textImports(): Plugin {
  return {
    name: "svc-text-imports",
    enforce: "pre",
    load(id) {
      const file = id.split("?")[0];
      if (!file.endsWith(".txt")) return null;
      return `export default ${JSON.stringify(readFileSync(file, "utf8"))};`;
    },
  };
}

/**
 * Files that run one at a time, before the rest: the longest (each loads DynamoDB Local or
 * the machine alone), those whose assertions lean on time (rate windows, cache lifetimes,
 * one check's time against another's), and those that read a table's stream (DynamoDB
 * Local answers TrimmedDataAccessException to one reader while another table's stream is
 * read). The other files run two at once: on two cores, 19 minutes instead of 26.
 */
const ONE_AT_A_TIME = [
  "test/reliability/**/*.test.ts",
  "test/scripts/bench/**/*.test.ts",
  "test/infra/cloud-assembly.test.ts",
  "test/bin/users-transfer.test.ts",
  "test/lib/local/start.test.ts",
  "test/events/stream.test.ts",
  "test/events/backchannel-logout.test.ts",
  "test/lib/store/table-admin.test.ts",
];

/** What both groups run with; the suite's one DynamoDB Local comes from the root's global setup. */
const EACH_FILE = {
  setupFiles: ["test/support/table-per-file.ts"],
  testTimeout: 30_000,
  hookTimeout: 60_000,
  pool: "forks" as const,
  // Node 20 support notice of the AWS SDK; Lambda runs nodejs22.x.
  // Metrics lines are silenced as log lines are; test/lib/metrics.test.ts turns them on.
  env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true", POWERTOOLS_METRICS_DISABLED: "true" },
};

export default defineConfig({
  test: {
    globalSetup: ["test/support/global-setup.ts"],
    projects: [
      {
        plugins: [textImports()],
        test: {
          ...EACH_FILE,
          name: "one at a time",
          include: ONE_AT_A_TIME,
          maxWorkers: 1,
          // Not 0: vitest would run a one-worker group of order 0 last.
          sequence: { groupOrder: 1 },
        },
      },
      {
        plugins: [textImports()],
        test: {
          ...EACH_FILE,
          name: "two at a time",
          include: ["test/**/*.test.ts"],
          exclude: ONE_AT_A_TIME,
          maxWorkers: 2,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
