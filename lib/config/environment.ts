import { readFileSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import type { Config, DataKeySource } from "./settings";
import { ConfigError, onlyLambdaHooks, parseSettings } from "./validation";

/**
 * The one place that reads the environment; lib/config.ts hands it the process's environment; everything else asks `config()`.
 * The file named by SVC_CONFIG (docs/configuration.md) is read here and validated once, at cold start.
 */

type Env = Record<string, string | undefined>;

function integerFrom(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0 || value > 65535) {
    throw new ConfigError(`${name} must be a port number, got "${raw}"`);
  }
  return value;
}

function secondsFrom(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > 3600) {
    throw new ConfigError(`${name} must be a whole number of seconds from 1 to 3600, got "${raw}"`);
  }
  return value;
}

function readSettingsSource(env: Env): unknown {
  // On Lambda the CDK stack inlines the operator's file as JSON (no file system to read).
  if (env.SVC_CONFIG_JSON) return JSON.parse(env.SVC_CONFIG_JSON);
  if (!env.SVC_CONFIG) return {};
  const path = isAbsolute(env.SVC_CONFIG) ? env.SVC_CONFIG : resolve(env.SVC_CONFIG);
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new ConfigError(`SVC_CONFIG ${path}: ${(error as Error).message}`);
  }
}

function messageTransport(raw: string | undefined, onLambda: boolean): "outbox" | "aws" {
  if (raw === undefined || raw === "") return onLambda ? "aws" : "outbox";
  if (raw !== "outbox" && raw !== "aws") throw new ConfigError(`SVC_MESSAGES must be outbox or aws, got "${raw}"`);
  return raw;
}

/** SVC_DATA_KEY: base64 of exactly 32 random bytes (`openssl rand -base64 32`). */
function dataKeyFrom(env: Env): DataKeySource | undefined {
  if (env.SVC_DATA_KEY) {
    const material = Buffer.from(env.SVC_DATA_KEY, "base64");
    if (material.length !== 32 || material.toString("base64") !== env.SVC_DATA_KEY.trim()) {
      throw new ConfigError("SVC_DATA_KEY must be the base64 of 32 random bytes (openssl rand -base64 32)");
    }
    return { kind: "inline", material };
  }
  if (env.SVC_DATA_KEY_SECRET_ID) return { kind: "secret", secretId: env.SVC_DATA_KEY_SECRET_ID };
  return undefined;
}

export function loadConfig(env: Env): Config {
  const dynamodbPort = integerFrom(env, "DYNAMODB_PORT", 8000);
  // SVC_TARGET=aws: a local tool (svc-admin --table) working on a deployed stack.
  const onAws = Boolean(env.AWS_LAMBDA_FUNCTION_NAME) || env.SVC_TARGET === "aws";
  const dynamodbEndpoint = env.DYNAMODB_ENDPOINT || (onAws ? undefined : `http://127.0.0.1:${dynamodbPort}`);
  const logLevel = (env.LOG_LEVEL ?? "info") as Config["logLevel"];
  if (!["debug", "info", "warn", "error", "silent"].includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be debug, info, warn, error or silent, got "${logLevel}"`);
  }
  return {
    tableName: env.TABLE_NAME || "svc-identity",
    dynamodbEndpoint,
    dynamodbPort,
    dynamodbWaitSeconds: secondsFrom(env, "DYNAMODB_WAIT_SECONDS", 120),
    region: env.AWS_REGION || env.AWS_DEFAULT_REGION || "eu-west-1",
    port: integerFrom(env, "PORT", 3000),
    inMemory: env.SVC_IN_MEMORY === "1" || env.SVC_IN_MEMORY === "true",
    bootstrapClient: {
      id: env.SVC_BOOTSTRAP_CLIENT_ID || undefined,
      secret: env.SVC_BOOTSTRAP_CLIENT_SECRET || undefined,
    },
    outboxFile: resolve(env.SVC_OUTBOX_FILE || ".local/outbox.jsonl"),
    events: { busName: env.EVENT_BUS_NAME || undefined, file: resolve(env.SVC_EVENTS_FILE || ".local/events.jsonl") },
    metricsDisabled: env.POWERTOOLS_METRICS_DISABLED === "true",
    messages: {
      transport: messageTransport(env.SVC_MESSAGES, Boolean(env.AWS_LAMBDA_FUNCTION_NAME)),
      mailFrom: env.SVC_MAIL_FROM || "no-reply@svc-identity.local",
    },
    issuer: env.SVC_ISSUER || "svc-identity",
    logLevel,
    dataKey: dataKeyFrom(env),
    settings: env.AWS_LAMBDA_FUNCTION_NAME
      ? onlyLambdaHooks(parseSettings(readSettingsSource(env)))
      : parseSettings(readSettingsSource(env)),
  };
}

/**
 * Whether X-Ray tracing may run (lib/tracing.ts): on Lambda (AWS_EXECUTION_ENV), unless
 * POWERTOOLS_TRACE_ENABLED=false. Powertools then makes the final call from its own variables.
 */
export function tracingWanted(env: Env): boolean {
  return Boolean(env.AWS_EXECUTION_ENV) && env.POWERTOOLS_TRACE_ENABLED?.toLowerCase() !== "false";
}

/**
 * The SDK warns on every local run that Node 20 support ends in 2027; locally that is
 * known (Lambda runs nodejs22.x) and the lock file pins the SDK, so local tools mute it.
 */
export const LOCAL_TOOL_ENV = { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true" };
