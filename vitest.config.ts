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

export default defineConfig({
  plugins: [textImports()],
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/support/global-setup.ts"],
    setupFiles: ["test/support/table-per-file.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Node 20 support notice of the AWS SDK; Lambda runs nodejs22.x.
    // Metrics lines are silenced as log lines are; test/lib/metrics.test.ts turns them on.
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true", POWERTOOLS_METRICS_DISABLED: "true" },
  },
});
