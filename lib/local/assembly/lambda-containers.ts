import { type ChildProcess, fork } from "node:child_process";
import { randomUUID } from "node:crypto";
import { createWriteStream, mkdirSync, type WriteStream } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { processEnv } from "../../config";
import type { AssemblyFunction } from "./cloud-assembly";
import { LOCAL_ACCOUNT_ID } from "./local-world";

/**
 * Lambda's execution environments for the functions of a cloud assembly: each a node
 * process of its own running the bundled asset (lambda-runtime.mjs) with the template's
 * environment plus the variables Lambda sets, one invocation at a time; another
 * environment starts when all are busy, and one that passes its timeout is killed, as
 * Lambda does.
 */

const RUNTIME = fileURLToPath(new URL("./lambda-runtime.mjs", import.meta.url));

/** Lambda's answer when the function threw or timed out (the gateway then answers 500). */
export class FunctionError extends Error {
  constructor(
    readonly functionId: string,
    readonly errorType: string,
    message: string,
  ) {
    super(`${functionId}: ${errorType}: ${message}`);
  }
}

export interface ContainerOptions {
  /** The environment of each function: the template's, resolved, plus the local AWS endpoint's. */
  environmentOf(fn: AssemblyFunction): Record<string, string>;
  region: string;
  /** Where the functions' stdout and stderr go: a file (appended), or this process's own. */
  logFile?: string;
  /** Environments per function at most; a burst beyond waits for one to be free. */
  maxPerFunction?: number;
  /** The node binary (default: this one). */
  node?: string;
}

interface Environment {
  child: ChildProcess;
  ready: Promise<void>;
  busy: boolean;
  pending?: { id: string; done(result: unknown): void; fail(error: Error): void; timer: NodeJS.Timeout };
}

export interface LambdaContainers {
  invoke(fn: AssemblyFunction, event: unknown): Promise<unknown>;
  /** Cold starts so far, per function logical id. */
  coldStarts(): Record<string, number>;
  stop(): Promise<void>;
}

export function lambdaContainers(options: ContainerOptions): LambdaContainers {
  const pools = new Map<string, Environment[]>();
  const waiting = new Map<string, Array<() => void>>();
  const starts: Record<string, number> = {};
  let log: WriteStream | undefined;
  if (options.logFile) {
    mkdirSync(dirname(options.logFile), { recursive: true });
    log = createWriteStream(options.logFile, { flags: "a" });
  }
  const maxPerFunction = options.maxPerFunction ?? 8;

  function start(fn: AssemblyFunction): Environment {
    starts[fn.logicalId] = (starts[fn.logicalId] ?? 0) + 1;
    const name = fn.logicalId;
    const child = fork(RUNTIME, [], {
      cwd: fn.assetDir,
      execPath: options.node ?? process.execPath,
      // The heap bounded by the function's memory, as Lambda's Node bootstrap bounds it.
      execArgv: [`--max-old-space-size=${Math.floor(fn.memoryMb * 0.9)}`],
      env: {
        PATH: processEnv().PATH,
        LANG: "en_US.UTF-8",
        TZ: ":UTC",
        ...options.environmentOf(fn),
        AWS_REGION: options.region,
        AWS_DEFAULT_REGION: options.region,
        AWS_EXECUTION_ENV: `AWS_Lambda_${fn.runtime}`,
        AWS_LAMBDA_FUNCTION_NAME: name,
        AWS_LAMBDA_FUNCTION_VERSION: "$LATEST",
        AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(fn.memoryMb),
        AWS_LAMBDA_INITIALIZATION_TYPE: "on-demand",
        AWS_LAMBDA_LOG_GROUP_NAME: `/aws/lambda/${name}`,
        AWS_LAMBDA_LOG_STREAM_NAME: `local/[$LATEST]${randomUUID().replaceAll("-", "")}`,
        LAMBDA_TASK_ROOT: fn.assetDir,
        _HANDLER: fn.handler,
      },
      stdio: log ? ["ignore", "pipe", "pipe", "ipc"] : ["ignore", "inherit", "inherit", "ipc"],
    });
    if (log) {
      const sink = log;
      child.stdout?.on("data", (chunk: Buffer) => sink.write(chunk));
      child.stderr?.on("data", (chunk: Buffer) => sink.write(chunk));
    }
    const environment: Environment = { child, busy: true, ready: Promise.resolve() };
    environment.ready = new Promise<void>((done, fail) => {
      child.once("message", (message: { type: string; error?: { errorType: string; errorMessage: string } }) => {
        if (message.type === "ready") return done();
        fail(new FunctionError(name, message.error?.errorType ?? "Runtime.Unknown", message.error?.errorMessage ?? ""));
      });
      child.once("exit", (code) => fail(new FunctionError(name, "Runtime.ExitError", `exited with ${code} at init`)));
    });
    child.on(
      "message",
      (message: {
        type: string;
        id?: string;
        result?: unknown;
        error?: { errorType: string; errorMessage: string };
      }) => {
        const pending = environment.pending;
        if (message.type !== "result" || !pending || message.id !== pending.id) return;
        clearTimeout(pending.timer);
        environment.pending = undefined;
        if (message.error) pending.fail(new FunctionError(name, message.error.errorType, message.error.errorMessage));
        else pending.done(message.result);
      },
    );
    child.on("exit", () => {
      const pool = pools.get(name) ?? [];
      pools.set(
        name,
        pool.filter((e) => e !== environment),
      );
      environment.pending?.fail(new FunctionError(name, "Runtime.ExitError", "the environment exited"));
      environment.pending = undefined;
      release(name);
    });
    pools.set(name, [...(pools.get(name) ?? []), environment]);
    return environment;
  }

  function release(name: string): void {
    waiting.get(name)?.shift()?.();
  }

  async function acquire(fn: AssemblyFunction): Promise<Environment> {
    for (;;) {
      const pool = pools.get(fn.logicalId) ?? [];
      const idle = pool.find((e) => !e.busy);
      if (idle) {
        idle.busy = true;
        return idle;
      }
      if (pool.length < maxPerFunction) return start(fn);
      await new Promise<void>((done) => waiting.set(fn.logicalId, [...(waiting.get(fn.logicalId) ?? []), done]));
    }
  }

  async function invoke(fn: AssemblyFunction, event: unknown): Promise<unknown> {
    const environment = await acquire(fn);
    try {
      await environment.ready;
      const id = randomUUID();
      return await new Promise((done, fail) => {
        const timer = setTimeout(() => {
          environment.pending = undefined;
          environment.child.kill("SIGKILL");
          fail(
            new FunctionError(fn.logicalId, "Sandbox.Timedout", `Task timed out after ${fn.timeoutSeconds} seconds`),
          );
        }, fn.timeoutSeconds * 1000);
        environment.pending = { id, done, fail, timer };
        environment.child.send({
          type: "invoke",
          id,
          event,
          requestId: randomUUID(),
          deadline: Date.now() + fn.timeoutSeconds * 1000,
          functionArn: `arn:aws:lambda:${options.region}:${LOCAL_ACCOUNT_ID}:function:${fn.logicalId}`,
          ...(fn.tracing && {
            traceId: `Root=1-${Math.floor(Date.now() / 1000).toString(16)}-${randomUUID().replaceAll("-", "").slice(0, 24)};Parent=${randomUUID().replaceAll("-", "").slice(0, 16)};Sampled=1`,
          }),
        });
      });
    } finally {
      environment.busy = false;
      release(fn.logicalId);
    }
  }

  return {
    invoke,
    coldStarts: () => ({ ...starts }),
    async stop() {
      const all = [...pools.values()].flat();
      await Promise.all(
        all.map(
          (e) =>
            new Promise<void>((done) => {
              if (e.child.exitCode !== null) return done();
              e.child.once("exit", () => done());
              e.child.kill("SIGTERM");
            }),
        ),
      );
      log?.end();
    },
  };
}
