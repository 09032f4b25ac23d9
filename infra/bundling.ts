import { fileURLToPath } from "node:url";
import { AssetHashType, DockerImage } from "aws-cdk-lib";
import { Code } from "aws-cdk-lib/aws-lambda";
import { type BuildOptions, build, buildSync } from "esbuild";
import type { FunctionName } from "../lib/http/route";
import { FUNCTION_NEEDS } from "./function-needs";

/** The project's root: where the builds run and their paths start. */
export const PROJECT_ROOT = fileURLToPath(new URL("..", import.meta.url));

// Bundled CJS dependencies call `require` for Node built-ins, which ESM lacks. The alias
// keeps clear of any bundled module that imports `createRequire` under its own name.
const REQUIRE_SHIM =
  "import{createRequire as __svcCreateRequire}from'node:module';const require=__svcCreateRequire(import.meta.url);";

const NODE_HTTP = fileURLToPath(new URL("./node-http.cjs", import.meta.url));

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
  alias: {
    // Node's web streams load only if a response is ever streamed (infra/lazy-stream-web.ts).
    "node:stream/web": fileURLToPath(new URL("./lazy-stream-web.ts", import.meta.url)),
    // Node 22 loads undici for an ESM import of `node:http`, not for a require (infra/node-http.cjs).
    "node:http": NODE_HTTP,
    http: NODE_HTTP,
  },
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
 * The worker thread that verifies bcrypt and argon2id hashes (lib/crypto/foreign-hash-pool.ts):
 * a second entry of every function's build, so it lands beside index.mjs where the pool looks
 * for it, and the function's own code never holds the foreign-hash libraries.
 */
export const HASH_WORKER = { entry: "lib/crypto/foreign-hash-worker.mjs", file: "foreign-hash-worker.mjs" } as const;

/**
 * The build of one Lambda function into `outdir`, for `cdk synth` and `npm run build` alike:
 * index.mjs, the hash worker, and the chunks esbuild splits off. Code reached only by a
 * dynamic import goes into a chunk that a cold start neither reads nor parses
 * (docs/decisions/code-splitting.md). All in one folder: a module finds the worker by
 * its own URL.
 */
export function functionBuildOptions(name: FunctionName, outdir: string): BuildOptions {
  const options = splitBuildOptions(withHashWorker({ index: `functions/${name}.ts` }), outdir);
  return { ...options, external: [...(options.external ?? []), ...clientsNeverLoaded(name)] };
}

/**
 * The AWS clients the shared wiring imports on first use (lib/notify/transport.ts,
 * lib/crypto/data-key.ts) that this function never uses, since its role may not call them:
 * esbuild would otherwise ship their chunks, unread, in every function.
 */
function clientsNeverLoaded(name: FunctionName): string[] {
  const needs = FUNCTION_NEEDS[name];
  return [
    ...(needs.messaging ? [] : ["@aws-sdk/client-sns", "@aws-sdk/client-ses"]),
    ...(needs.dataKey ? [] : ["@aws-sdk/client-secrets-manager"]),
  ];
}

/** Entry points with the hash worker beside them, built to HASH_WORKER.file. */
function withHashWorker(entryPoints: Record<string, string>): Record<string, string> {
  return { ...entryPoints, [HASH_WORKER.file.replace(/\.mjs$/, "")]: HASH_WORKER.entry };
}

/** The Lambda settings with code splitting: each entry `<name>.mjs` in `outdir`, chunks beside. */
export function splitBuildOptions(entryPoints: Record<string, string>, outdir: string): BuildOptions {
  const { outfile: _single, ...options } = esbuildOptions("", "");
  return {
    ...options,
    entryPoints,
    outdir,
    splitting: true,
    outExtension: { ".js": ".mjs" },
    chunkNames: "chunk-[hash]",
  };
}

/**
 * At least the largest function's asset unzipped, in bytes: everything one build of all the
 * functions together writes (entries, chunks, the hash worker, source maps), with the settings
 * of `cdk synth`. Each function's own build holds part of the same code, so it comes out
 * smaller; one build instead of one per function keeps the limits test fast (2 s, not 25).
 */
export async function allFunctionsAssetBytes(names: readonly string[]): Promise<number> {
  const entries = withHashWorker(Object.fromEntries(names.map((name) => [name, `functions/${name}.ts`])));
  const result = await build({ ...splitBuildOptions(entries, "assets"), absWorkingDir: PROJECT_ROOT, write: false });
  return result.outputFiles.reduce((sum, file) => sum + file.contents.byteLength, 0);
}

/**
 * `cdk synth`'s code of a function: the same esbuild build as `npm run build`, run in
 * process (esbuild's API), its output hashed as the asset.
 */
export function functionCode(name: FunctionName): Code {
  return Code.fromAsset(PROJECT_ROOT, {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      // Only the local build below is used; a Docker build is not offered.
      image: DockerImage.fromRegistry("public.ecr.aws/sam/build-nodejs22.x"),
      // Part of CDK's cache key: without it every function would share the first one's build.
      environment: { SVC_FUNCTION: name },
      local: {
        tryBundle(outputDir: string): boolean {
          buildSync({ ...functionBuildOptions(name, outputDir), absWorkingDir: PROJECT_ROOT });
          return true;
        },
      },
    },
  });
}
