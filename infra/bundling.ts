import { fileURLToPath } from "node:url";
import { type BundlingOptions, OutputFormat } from "aws-cdk-lib/aws-lambda-nodejs";
import type { BuildOptions } from "esbuild";

// Bundled CJS dependencies call `require` for Node built-ins, which ESM lacks. The alias
// keeps clear of any bundled module that imports `createRequire` under its own name.
const REQUIRE_SHIM =
  "import{createRequire as __svcCreateRequire}from'node:module';const require=__svcCreateRequire(import.meta.url);";

/**
 * The one set of esbuild settings for Lambda bundles. `cdk synth` and `npm run build`
 * both derive from it, so the size table of `npm run build` describes what ships.
 */
export const LAMBDA_BUNDLE = {
  format: "esm",
  platform: "node",
  target: "node22",
  minify: true,
  sourcemap: true,
  // Stack traces need the mappings only; the sources would double the asset.
  sourcesContent: false,
  // A package's ESM build tree-shakes and needs no CJS interop shims.
  mainFields: ["module", "main"],
  banner: { js: REQUIRE_SHIM },
  // The SDK is bundled too: the runtime's copy changes under us and costs a cold-start resolve.
  external: [],
  // Node's web streams load only if a response is ever streamed (infra/lazy-stream-web.ts).
  alias: { "node:stream/web": fileURLToPath(new URL("./lazy-stream-web.ts", import.meta.url)) },
  // A `.txt` import is the file's text (the common-password list), as in tests and under tsx.
  loader: { ".txt": "text" },
} as const satisfies BuildOptions;

/** esbuild options that bundle one entry to `outfile` (scripts/build.ts). */
export function esbuildOptions(entry: string, outfile: string): BuildOptions {
  return {
    ...LAMBDA_BUNDLE,
    mainFields: [...LAMBDA_BUNDLE.mainFields],
    external: [...LAMBDA_BUNDLE.external],
    alias: { ...LAMBDA_BUNDLE.alias },
    loader: { ...LAMBDA_BUNDLE.loader },
    entryPoints: [entry],
    outfile,
    bundle: true,
    logLevel: "warning",
  };
}

/**
 * The worker thread that verifies bcrypt and argon2id hashes (lib/crypto/foreign-hash-pool.ts)
 * is its own bundle beside each function's index.mjs, where the pool looks for it: the
 * function bundle never holds the foreign-hash libraries.
 */
export const HASH_WORKER = { entry: "lib/crypto/foreign-hash-worker.mjs", file: "foreign-hash-worker.mjs" } as const;

/** The esbuild command line that bundles the worker into `outdir`, with the functions' settings. */
export function hashWorkerCommand(projectDir: string, outdir: string): string {
  const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;
  const flags = [
    "--bundle",
    `--platform=${LAMBDA_BUNDLE.platform}`,
    `--format=${LAMBDA_BUNDLE.format}`,
    `--target=${LAMBDA_BUNDLE.target}`,
    ...(LAMBDA_BUNDLE.minify ? ["--minify"] : []),
    `--main-fields=${LAMBDA_BUNDLE.mainFields.join(",")}`,
    `--banner:js=${quote(LAMBDA_BUNDLE.banner.js)}`,
    "--log-level=warning",
    `--outfile=${quote(`${outdir}/${HASH_WORKER.file}`)}`,
  ];
  return `cd ${quote(projectDir)} && npx --no-install esbuild ${HASH_WORKER.entry} ${flags.join(" ")}`;
}

/** The same settings as NodejsFunction bundling (infra/stack.ts). */
export function lambdaBundling(): BundlingOptions {
  return {
    format: OutputFormat.ESM,
    target: LAMBDA_BUNDLE.target,
    minify: LAMBDA_BUNDLE.minify,
    sourceMap: LAMBDA_BUNDLE.sourcemap,
    sourcesContent: LAMBDA_BUNDLE.sourcesContent,
    mainFields: [...LAMBDA_BUNDLE.mainFields],
    banner: LAMBDA_BUNDLE.banner.js,
    bundleAwsSDK: true,
    externalModules: [...LAMBDA_BUNDLE.external],
    loader: { ...LAMBDA_BUNDLE.loader },
    esbuildArgs: { "--alias": Object.entries(LAMBDA_BUNDLE.alias).map(([from, to]) => `${from}=${to}`) },
    commandHooks: {
      beforeBundling: () => [],
      beforeInstall: () => [],
      afterBundling: (inputDir, outputDir) => [hashWorkerCommand(inputDir, outputDir)],
    },
  };
}
