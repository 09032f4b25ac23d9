import { config } from "./config";
import { originalStack } from "./original-stack";

/**
 * One JSON line per log record, carrying the request id and the function of the request
 * it belongs to. Callers pass facts, never request bodies or headers, so no secret can
 * reach a log line; `redact` is the second line of defence.
 */

/** What every line of one request carries. */
interface LogContext {
  requestId: string;
  function: string;
}

// A Lambda container runs one invocation at a time, so the request being served is a
// plain variable. AsyncLocalStorage cost a quarter of warm throughput on Node 20
// (docs/decisions/logging.md); the local gateway, which interleaves requests, may label a
// line with a request that started after the line's own.
let current: LogContext | undefined;

/** Runs `work` with every log line it writes carrying `context`. */
export function withLogContext<T>(context: LogContext, work: () => T): T {
  current = context;
  return work();
}

/** The request being served, for adapters that label their output as log lines are (metrics). */
export function logContext(): Readonly<LogContext> | undefined {
  return current;
}

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const;
type Level = Exclude<keyof typeof LEVELS, "silent">;

const SECRET_KEYS = /pass|secret|token|code|answer|otp|authorization|cookie|credential|privatejwk/i;

function redact(value: unknown, depth = 0): unknown {
  if (depth > 6 || value === null || typeof value !== "object") return value;
  if (value instanceof Error) {
    return { name: value.name, message: value.message, stack: originalStack(value.stack) };
  }
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    out[key] = SECRET_KEYS.test(key) ? "[redacted]" : redact(inner, depth + 1);
  }
  return out;
}

function write(level: Level, message: string, fields: Record<string, unknown>): void {
  if (LEVELS[level] < LEVELS[config().logLevel]) return;
  const line = JSON.stringify({
    level,
    time: new Date().toISOString(),
    message,
    ...current,
    ...(redact(fields) as object),
  });
  if (level === "error" || level === "warn") process.stderr.write(`${line}\n`);
  else process.stdout.write(`${line}\n`);
}

export const log = {
  debug: (message: string, fields: Record<string, unknown> = {}) => write("debug", message, fields),
  info: (message: string, fields: Record<string, unknown> = {}) => write("info", message, fields),
  warn: (message: string, fields: Record<string, unknown> = {}) => write("warn", message, fields),
  error: (message: string, fields: Record<string, unknown> = {}) => write("error", message, fields),
};
