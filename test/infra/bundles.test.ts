import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { App, Stack } from "aws-cdk-lib";
import { Function as LambdaFunction, Runtime } from "aws-cdk-lib/aws-lambda";
import bcrypt from "bcryptjs";
import { argon2id } from "hash-wasm";
import { beforeAll, describe, expect, it } from "vitest";
import { functionBuildOptions, functionCode, HASH_WORKER, LAMBDA_BUNDLE } from "../../infra/bundling";
import { FUNCTION_NEEDS } from "../../infra/function-needs";
import { ReadableStream as LazyReadableStream } from "../../infra/lazy-stream-web";
import { FUNCTION_NAMES, type FunctionName } from "../../lib/http/route";
import { routes } from "../../lib/routes";
import {
  BUDGET_FILE,
  type BundleBudget,
  type BundleReport,
  budgetProblems,
  bundleReport,
} from "../../scripts/bundle-report";

/**
 * What goes into each Lambda bundle, as `cdk synth` builds it. Every byte is parsed on a
 * cold start (issue 8 target 3), so packages stay out of the functions that never use them.
 */

const budgets = JSON.parse(readFileSync(BUDGET_FILE, "utf8")) as Record<string, BundleBudget>;
/** Libraries a cold start must never evaluate: each loads on the one call that needs it. */
const DEFERRED = [
  "@aws-sdk/client-lambda",
  "bcryptjs",
  "hash-wasm",
  "@simplewebauthn/server",
  "qrcode",
  "otplib",
  "ua-parser-js",
];
/** The OpenAPI document (300 KiB of object literal) is evaluated on its own request only. */
const DEFERRED_SOURCES = ["lib/compiled/openapi.ts"];
const reports = new Map<FunctionName, BundleReport>();
const inputs = (fn: FunctionName) => reports.get(fn)?.inputs ?? [];
const edges = (fn: FunctionName) => reports.get(fn)?.edges ?? [];

function includesPackage(fn: FunctionName, name: string): boolean {
  return inputs(fn).some((path) => path.includes(`node_modules/${name}/`));
}

beforeAll(async () => {
  for (const fn of FUNCTION_NAMES) reports.set(fn, await bundleReport(fn));
}, 180_000);

describe("Lambda bundles", () => {
  it.each(FUNCTION_NAMES)(
    "when %s is bundled, it stays within its budget: its size and the packages it evaluates at import",
    (fn) => {
      // Raising a budget: `npm run budgets -- --write`, with the reason in docs/decisions/bundle-budgets.md.
      expect(budgetProblems(reports.get(fn) as BundleReport, budgets[fn])).toEqual([]);
    },
  );

  it.each(FUNCTION_NAMES)("when %s is imported, it evaluates none of the deferred libraries", (fn) => {
    const atImport = reports.get(fn)?.packagesAtImport ?? [];
    expect(atImport.length).toBeGreaterThan(0);
    expect(atImport.filter((name) => DEFERRED.includes(name))).toEqual([]);
    expect((budgets[fn]?.packagesAtImport ?? []).filter((name) => DEFERRED.includes(name))).toEqual([]);
  });

  it.each(FUNCTION_NAMES)("when %s is imported, it does not evaluate the OpenAPI document", (fn) => {
    const atImport = reports.get(fn)?.sourcesAtImport ?? [];
    expect(atImport).toContain(`functions/${fn}.ts`);
    expect(atImport.filter((path) => DEFERRED_SOURCES.includes(path))).toEqual([]);
  });

  it.each(FUNCTION_NAMES)("when %s is bundled, it carries the SNS and SES clients only if it sends messages", (fn) => {
    const messaging = FUNCTION_NEEDS[fn].messaging === true;
    expect(includesPackage(fn, "@aws-sdk/client-sns")).toBe(messaging);
    expect(includesPackage(fn, "@aws-sdk/client-ses")).toBe(messaging);
  });

  it.each(FUNCTION_NAMES)(
    "when %s is bundled, it carries the WebAuthn library only if it runs passkey ceremonies",
    (fn) => {
      // The passkey routes live in security, the passkey pages in hosted and the account console; the token endpoint has no browser.
      expect(includesPackage(fn, "@simplewebauthn/server")).toBe(["security", "hosted", "account"].includes(fn));
    },
  );

  it.each(FUNCTION_NAMES)(
    "when %s is bundled, it carries no schema compiler: its validators are compiled ahead of time",
    (fn) => {
      const compilerFiles = inputs(fn).filter((path) =>
        /node_modules\/ajv\/dist\/(compile|core|vocabularies)\//.test(path),
      );
      expect(compilerFiles).toEqual([]);
      expect(includesPackage(fn, "fast-uri")).toBe(false);
    },
  );

  it.each(FUNCTION_NAMES)(
    "when %s is bundled, it carries the common-password list (75 KiB) only if it checks new passwords",
    (fn) => {
      // Registration, password changes (the API's and the account console's), and the password grant's forced change (interface §4.2).
      const checksPasswords = ["registration", "passwords", "token", "hosted", "account"].includes(fn);
      const list = inputs(fn).some((path) => path.endsWith("lib/domain/passwords/common-passwords.txt"));
      expect(list).toBe(checksPasswords);
    },
  );

  it.each(FUNCTION_NAMES)(
    "when %s hashes a password or an answer on one of its routes, it asks for a whole vCPU (hashes)",
    (fn) => {
      // The modules that run scrypt for a route (the user password check of HTTP Basic is in
      // every bundle, but only the routes that accept user Basic reach it).
      const hashingModules = [
        "lib/domain/registration/register.ts",
        "lib/domain/passwords/change-password.ts",
        "lib/domain/login/password-grant.ts",
        "lib/domain/security/security-question.ts",
      ];
      const bundlesHashing = inputs(fn).some((path) => hashingModules.some((m) => path.endsWith(m)));
      const acceptsUserBasic = routes.some((route) => route.fn === fn && route.auth === "user-bearer-or-user-basic");
      expect(FUNCTION_NEEDS[fn].hashes === true).toBe(bundlesHashing || acceptsUserBasic);
    },
  );

  it.each(FUNCTION_NAMES)("when %s is bundled, it does not load Node's web streams at import", (fn) => {
    // middy's import of node:stream/web goes to infra/lazy-stream-web.ts (about 3 ms of a cold start).
    expect(reports.get(fn)?.runtimeImports).not.toContain("node:stream/web");
    // The report saw the bundle's Node imports.
    expect(reports.get(fn)?.runtimeImports).toContain("node:crypto");
  });

  it.each(FUNCTION_NAMES)("when %s is bundled, nothing imports node:http as an ES module", (fn) => {
    // On Node 22 that import loads undici (10 to 25 ms of a cold start): infra/node-http.cjs.
    const http = edges(fn).filter((e) => /^(node:)?http$/.test(e.to) || e.to === "infra/node-http.cjs");
    expect(http.filter((e) => e.to !== "infra/node-http.cjs")).toEqual([]);
    // The AWS SDK's HTTP handler takes it through the stand-in (the console has no AWS client).
    if (FUNCTION_NEEDS[fn].table !== "none") expect(http.length).toBeGreaterThan(0);
  });

  it.each(FUNCTION_NAMES)(
    "when %s is bundled, the Lambda SDK, the foreign-hash libraries, the WebAuthn library and the QR encoder are reached only by dynamic imports",
    (fn) => {
      // A cold start then parses them but does not evaluate them (docs/decisions/tracing-cold-start.md).
      // The hash worker is an entry of its own, loaded in its own thread: its imports are not the function's.
      const into = (pkg: RegExp) =>
        edges(fn).filter((e) => pkg.test(e.to) && !pkg.test(e.from) && e.from !== HASH_WORKER.entry);
      for (const e of into(/node_modules\/@aws-sdk\/client-lambda\//))
        expect(`${e.from} ${e.kind}`).toBe("lib/hooks/lambda-sdk.ts import-statement");
      for (const e of into(
        /^lib\/hooks\/lambda-sdk\.ts$|^lib\/crypto\/foreign-hash-pool\.ts$|node_modules\/(bcryptjs|hash-wasm|@simplewebauthn\/server|qrcode)\//,
      ))
        expect(`${e.from} ${e.kind}`).toMatch(/ dynamic-import$/);
    },
  );

  it("when cdk synth bundles a function, its asset holds index.mjs, its chunks and the hash worker, and answers with no node_modules", async () => {
    const out = mkdtempSync(join(tmpdir(), "cdk-asset-"));
    try {
      const app = new App({ outdir: out });
      const stack = new Stack(app, "BundleCheck");
      new LambdaFunction(stack, "Meta", {
        code: functionCode("meta"),
        handler: "index.handler",
        runtime: Runtime.NODEJS_22_X,
      });
      new LambdaFunction(stack, "Jobs", {
        code: functionCode("jobs"),
        handler: "index.handler",
        runtime: Runtime.NODEJS_22_X,
      });
      const assembly = app.synth();
      const assets = readdirSync(assembly.directory).filter((name) => name.startsWith("asset."));
      // One build per function, not one shared by both.
      expect(assets).toHaveLength(2);
      const meta = assets
        .map((name) => join(assembly.directory, name))
        .find((dir) => readFileSync(join(dir, "index.mjs"), "utf8").includes("svc/health"));
      expect(meta).toBeDefined();
      const files = readdirSync(meta as string);
      expect(files).toContain(HASH_WORKER.file);
      expect(files.some((file) => /^chunk-.*\.mjs$/.test(file))).toBe(true);
      // Outside the project, as on Lambda: the asset needs nothing beside itself.
      const url = pathToFileURL(join(meta as string, "index.mjs")).href;
      const imported = spawnSync(
        process.execPath,
        ["--input-type=module", "-e", `const m = await import(${JSON.stringify(url)}); console.log(typeof m.handler);`],
        { cwd: tmpdir(), encoding: "utf8", env: { ...process.env, LOG_LEVEL: "silent" } },
      );
      expect(imported.stdout.trim(), imported.stderr).toBe("function");

      const worker = new Worker(join(meta as string, HASH_WORKER.file));
      const ask = (id: number, alg: string, password: string, hash: string) =>
        new Promise<unknown>((done) => {
          worker.once("message", done);
          worker.postMessage({ id, alg, password, hash });
        });
      const bcryptHash = bcrypt.hashSync("right", 4);
      const argon2Hash = await argon2id({
        password: "right",
        salt: Buffer.alloc(16, 7),
        iterations: 1,
        parallelism: 1,
        memorySize: 64,
        hashLength: 32,
        outputType: "encoded",
      });
      expect(await ask(1, "bcrypt", "right", bcryptHash)).toEqual({ id: 1, matches: true });
      expect(await ask(2, "bcrypt", "wrong", bcryptHash)).toEqual({ id: 2, matches: false });
      expect(await ask(3, "argon2id", "right", argon2Hash)).toEqual({ id: 3, matches: true });
      expect(await ask(4, "argon2id", "right", "$argon2id$v=19$m=64,t=1,p=1$AAAA$AAAA")).toEqual({
        id: 4,
        matches: false,
      });
      await worker.terminate();
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 60_000);

  it("when a function is built, esbuild reads .txt imports as text and sends node:stream/web to the stand-in", () => {
    const options = functionBuildOptions("meta", "dist-test/meta");
    expect(options.loader).toEqual({ ".txt": "text" });
    expect(options.alias).toEqual(LAMBDA_BUNDLE.alias);
    expect(options.splitting).toBe(true);
  });

  it("when middy asks whether a response body is a web ReadableStream, the stand-in answers as the real class", () => {
    const isStream = (body: unknown) =>
      body instanceof (LazyReadableStream as unknown as typeof globalThis.ReadableStream);
    expect(isStream(new globalThis.ReadableStream())).toBe(true);
    expect(isStream({ getReader: () => undefined })).toBe(false);
    expect(isStream("body")).toBe(false);
  });
});
