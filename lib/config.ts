import { existsSync, readFileSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { validateSettings } from "./compiled/settings-validator";
import { HOOK_NAMES, type HookName } from "./domain/hooks/contracts";
import { type CorsSettings, corsOriginProblem } from "./http/cors";

/**
 * The one place that reads the environment. Everything else asks `config()`.
 * The file named by SVC_CONFIG (docs/configuration.md) is validated once, at cold start, so a
 * typo in an operator's file stops the service instead of being silently ignored.
 */

export interface PasswordGroupRule {
  desc: string;
  chars: string;
  min: number;
}

/** A Pwned Passwords range API (k-anonymity): new passwords found in it are refused. */
export interface BreachedPasswordsConfig {
  /** `<rangeUrl>/<first 5 hex of the SHA-1>` answers `SUFFIX:COUNT` lines. */
  rangeUrl: string;
  /** A lookup slower than this is given up and the password judged without it. */
  timeoutMs: number;
}

export interface FederationProviderConfig {
  /** Letters, digits and "-": the two make the permission fed_tkn_<type>_<name> (interface §4.9). */
  type: string;
  name: string;
  authorizeUrl: string;
  tokenUrl: string;
  /** Where the external account id (`sub`) is read; without it, from the id_token. */
  userinfoUrl?: string;
  clientId: string;
  clientSecret: string;
  /** Keep the provider's access and refresh tokens for GET .../fedToken (interface §4.9). */
  rememberTokens: boolean;
  /** OAuth scope asked of the provider. */
  scope: string;
}

/**
 * Where a hook runs (docs/hooks.md): a Lambda function (`arn:aws:lambda:...` or `lambda:<name>`),
 * a module exporting `handler(input)` (absolute path), or a loopback HTTP URL; on Lambda, only the first.
 */
export type HookTarget =
  | { kind: "lambda"; functionName: string }
  | { kind: "module"; path: string }
  | { kind: "http"; url: string };

export interface HookSettings {
  target: HookTarget;
  timeoutMs: number;
}

export interface ServiceSettings {
  passwordPolicy: {
    minLength: number;
    maxLength: number;
    groups: PasswordGroupRule[];
    historyDepth: number;
    minNewChars: number;
    stopWords: string[];
    dictionary: boolean;
    minAgeSeconds: number;
    /** Unset: no breached-password lookup. */
    breachedPasswords?: BreachedPasswordsConfig;
  };
  codes: { length: number; ttlSeconds: number; attempts: number };
  /** One-time codes by e-mail or SMS as a second factor at sign-in; off by default (docs/configuration.md). */
  secondFactor: { emailCodes: boolean; smsCodes: boolean };
  registration: { createBeforeConfirm: boolean };
  /** keyRotationDays: the period of the stack's scheduled signing-key rotation; 0, none. */
  tokens: { accessTtlSeconds: number; refreshTtlSeconds: number; keyRotationDays: number };
  fedToken: { minLifetimeSeconds: number };
  inactivity: { lockAfterDays: number };
  defaultLanguage: "ru" | "en";
  search: { indexedAttributes: string[] };
  federation: {
    providers: FederationProviderConfig[];
    /** Our callback as the providers know it; unset: derived from the bind request's host. */
    callbackUrl?: string;
    /** How long a started bind may wait for the provider's answer. */
    stateTtlSeconds: number;
  };
  /** Security events (interface §6) are kept this long (TTL). */
  audit: { retentionDays: number };
  /** How long a container keeps a client's record for client authentication (0: never). */
  clients: { cacheSeconds: number };
  /** Browser origins the HTTP API answers CORS for (lib/http/cors.ts); none by default. */
  cors: CorsSettings;
  /**
   * WebAuthn relying party (docs/passkeys.md). rpId: default the issuer's host; origins: web
   * origins besides the issuer's where applications enrol or use passkeys.
   */
  passkeys: { rpId?: string; rpName: string; origins: string[] };
  /** Configured extension hooks by name; none by default. */
  hooks: Partial<Record<HookName, HookSettings>>;
}

/**
 * The key that encrypts data at rest outside the table (stored external tokens) and
 * signs bind states: inline from SVC_DATA_KEY (local), or a Secrets Manager secret
 * named by SVC_DATA_KEY_SECRET_ID (the CDK stack sets it).
 */
export type DataKeySource = { kind: "inline"; material: Buffer } | { kind: "secret"; secretId: string };

export interface Config {
  /** DynamoDB table (docs/architecture.md, contract: TABLE_NAME). */
  tableName: string;
  /** Set when talking to DynamoDB Local; unset on AWS. */
  dynamodbEndpoint?: string;
  dynamodbPort: number;
  region: string;
  /** Local gateway port (PORT). */
  port: number;
  inMemory: boolean;
  bootstrapClient: { id?: string; secret?: string };
  outboxFile: string;
  /**
   * Where the event stream publishes (docs/events.md): the EventBridge bus named by
   * EVENT_BUS_NAME (a name or ARN; the CDK stack sets it), else the JSON-lines file
   * SVC_EVENTS_FILE (local stack).
   */
  events: { busName?: string; file: string };
  /** POWERTOOLS_METRICS_DISABLED=true: no EMF lines (the test suite, as it silences logs). */
  metricsDisabled: boolean;
  /**
   * How SMS and e-mail leave: `outbox` appends to outboxFile (local stack, docs/configuration.md),
   * `aws` sends through SNS and SES (SVC_MESSAGES; default aws on Lambda).
   */
  messages: { transport: "outbox" | "aws"; mailFrom: string };
  /** The `iss` claim of every token we sign. */
  issuer: string;
  logLevel: "debug" | "info" | "warn" | "error" | "silent";
  /** Unset when neither variable is given: features that need it answer 503 and log why. */
  dataKey?: DataKeySource;
  settings: ServiceSettings;
}

export const defaultSettings: ServiceSettings = {
  passwordPolicy: {
    minLength: 8,
    maxLength: 256,
    groups: [],
    historyDepth: 0,
    minNewChars: 0,
    stopWords: [],
    dictionary: true,
    minAgeSeconds: 0,
  },
  codes: { length: 6, ttlSeconds: 600, attempts: 3 },
  secondFactor: { emailCodes: false, smsCodes: false },
  registration: { createBeforeConfirm: false },
  tokens: { accessTtlSeconds: 3600, refreshTtlSeconds: 2592000, keyRotationDays: 30 },
  fedToken: { minLifetimeSeconds: 30 },
  inactivity: { lockAfterDays: 0 },
  defaultLanguage: "ru",
  search: {
    indexedAttributes: ["sub", "email", "phone_number", "family_name", "given_name", "middle_name"],
  },
  federation: { providers: [], stateTtlSeconds: 600 },
  audit: { retentionDays: 180 },
  clients: { cacheSeconds: 10 },
  cors: { allowedOrigins: [] },
  passkeys: { rpName: "svc-identity", origins: [] },
  hooks: {},
};

/** How long a hook may take when its entry names no timeoutMs. */
export const DEFAULT_HOOK_TIMEOUT_MS = 3000;

/** How long a breached-password lookup may take when its entry names no timeoutMs. */
export const DEFAULT_BREACHED_TIMEOUT_MS = 2000;

/** The scope asked of a provider when its entry names none. */
export const DEFAULT_PROVIDER_SCOPE = "openid";

export class ConfigError extends Error {}

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

function isEmptyObject(value: unknown): boolean {
  return typeof value === "object" && value !== null && !Array.isArray(value) && Object.keys(value).length === 0;
}

/** Validates an operator's settings object and merges it over the defaults. */
export function parseSettings(source: unknown): ServiceSettings {
  // Nothing configured, nothing to check.
  if (isEmptyObject(source)) return structuredClone(defaultSettings);
  // Compiled ahead of time from lib/settings-schema.ts (npm run compile-schemas).
  if (!validateSettings(source)) {
    const problems = (validateSettings.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message}`).join("; ");
    throw new ConfigError(`SVC_CONFIG is invalid: ${problems}`);
  }
  const given = source as Partial<{ [K in keyof ServiceSettings]: Partial<ServiceSettings[K]> }>;
  const settings: ServiceSettings = {
    passwordPolicy: passwordPolicySettings(given.passwordPolicy),
    codes: { ...defaultSettings.codes, ...given.codes },
    secondFactor: { ...defaultSettings.secondFactor, ...given.secondFactor },
    registration: { ...defaultSettings.registration, ...given.registration },
    tokens: { ...defaultSettings.tokens, ...given.tokens },
    fedToken: { ...defaultSettings.fedToken, ...given.fedToken },
    inactivity: { ...defaultSettings.inactivity, ...given.inactivity },
    defaultLanguage: (given.defaultLanguage as ServiceSettings["defaultLanguage"]) ?? "ru",
    search: { ...defaultSettings.search, ...given.search },
    federation: federationSettings(given.federation),
    audit: { ...defaultSettings.audit, ...given.audit },
    clients: { ...defaultSettings.clients, ...given.clients },
    cors: corsSettings(given.cors),
    passkeys: passkeySettings(given.passkeys),
    hooks: hookSettings(given.hooks as Record<string, { target: string; timeoutMs?: number }> | undefined),
  };
  if (settings.passwordPolicy.minLength > settings.passwordPolicy.maxLength) {
    throw new ConfigError("SVC_CONFIG is invalid: passwordPolicy.minLength exceeds maxLength");
  }
  return settings;
}

function messageTransport(raw: string | undefined, onLambda: boolean): "outbox" | "aws" {
  if (raw === undefined || raw === "") return onLambda ? "aws" : "outbox";
  if (raw !== "outbox" && raw !== "aws") throw new ConfigError(`SVC_MESSAGES must be outbox or aws, got "${raw}"`);
  return raw;
}

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** Client secrets, tokens and password hash prefixes cross these URLs: https, or plain http to this machine only. */
function urlProblem(where: string, raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  if (!URL.canParse(raw)) return `${where} is not an absolute URL`;
  const url = new URL(raw);
  if (url.protocol === "https:" || (url.protocol === "http:" && LOOPBACK_HOSTS.has(url.hostname))) return undefined;
  return `${where} must use https (plain http only to localhost)`;
}

function passwordPolicySettings(
  given: Partial<ServiceSettings["passwordPolicy"]> | undefined,
): ServiceSettings["passwordPolicy"] {
  const policy = { ...defaultSettings.passwordPolicy, ...given };
  if (!given?.breachedPasswords) return policy;
  const problem = urlProblem("passwordPolicy.breachedPasswords.rangeUrl", given.breachedPasswords.rangeUrl);
  if (problem) throw new ConfigError(`SVC_CONFIG is invalid: ${problem}`);
  return {
    ...policy,
    breachedPasswords: {
      ...given.breachedPasswords,
      timeoutMs: given.breachedPasswords.timeoutMs ?? DEFAULT_BREACHED_TIMEOUT_MS,
    },
  };
}

function federationSettings(given: Partial<ServiceSettings["federation"]> | undefined): ServiceSettings["federation"] {
  const providers = (given?.providers ?? []).map((p) => ({
    ...p,
    rememberTokens: p.rememberTokens ?? false,
    scope: p.scope ?? DEFAULT_PROVIDER_SCOPE,
  }));
  const found: string[] = [];
  const seen = new Set<string>();
  providers.forEach((p, i) => {
    const id = `${p.type}:${p.name}`.toLowerCase();
    if (seen.has(id)) found.push(`federation.providers[${i}] repeats ${p.type}:${p.name}`);
    seen.add(id);
    for (const field of ["authorizeUrl", "tokenUrl", "userinfoUrl"] as const) {
      const problem = urlProblem(`federation.providers[${i}].${field}`, p[field]);
      if (problem) found.push(problem);
    }
  });
  const callbackProblem = urlProblem("federation.callbackUrl", given?.callbackUrl);
  if (callbackProblem) found.push(callbackProblem);
  if (found.length > 0) throw new ConfigError(`SVC_CONFIG is invalid: ${found.join("; ")}`);
  return { ...defaultSettings.federation, ...given, providers };
}

function corsSettings(given: Partial<CorsSettings> | undefined): CorsSettings {
  const allowedOrigins = [...(given?.allowedOrigins ?? [])];
  const found = allowedOrigins
    .map((origin, i) => corsOriginProblem(origin, i, allowedOrigins.length))
    .filter((problem) => problem !== undefined);
  if (found.length > 0) throw new ConfigError(`SVC_CONFIG is invalid: ${found.join("; ")}`);
  return { allowedOrigins };
}

const DOMAIN_NAME = /^(?=.{1,253}$)(?!-)[a-z0-9-]{1,63}(?<!-)(\.(?!-)[a-z0-9-]{1,63}(?<!-))*$/;

function passkeySettings(given: Partial<ServiceSettings["passkeys"]> | undefined): ServiceSettings["passkeys"] {
  const settings = { ...defaultSettings.passkeys, ...given, origins: [...(given?.origins ?? [])] };
  const found: string[] = [];
  // Browsers refuse an IP address as RP ID, and a URL is a common slip.
  if (settings.rpId !== undefined && (!DOMAIN_NAME.test(settings.rpId) || /^[0-9.]+$/.test(settings.rpId)))
    found.push(`passkeys.rpId must be a domain name such as example.com, got "${settings.rpId}"`);
  settings.origins.forEach((origin, i) => {
    const problem = urlProblem(`passkeys.origins[${i}]`, origin);
    if (problem) found.push(problem);
    else if (new URL(origin).origin !== origin) found.push(`passkeys.origins[${i}] must be an origin (no path)`);
  });
  if (found.length > 0) throw new ConfigError(`SVC_CONFIG is invalid: ${found.join("; ")}`);
  return settings;
}

const MODULE_FILE = /\.(mjs|js|cjs|ts|mts)$/;

/**
 * A hook's target from its string. HTTP targets get the user's password (userMigration) and
 * attributes, so only this machine may answer them: anything else is refused here.
 */
function hookTarget(where: string, raw: string): HookTarget | string {
  if (raw.startsWith("arn:aws:lambda:")) return { kind: "lambda", functionName: raw };
  if (raw.startsWith("lambda:"))
    return raw.length > 7 ? { kind: "lambda", functionName: raw.slice(7) } : `${where} names no function`;
  if (/^https?:\/\//.test(raw)) {
    if (!URL.canParse(raw)) return `${where} is not an absolute URL`;
    if (!LOOPBACK_HOSTS.has(new URL(raw).hostname))
      return `${where} must be a loopback URL (localhost, 127.0.0.1 or [::1]); use a Lambda function elsewhere`;
    return { kind: "http", url: raw };
  }
  if (MODULE_FILE.test(raw)) {
    const path = isAbsolute(raw) ? raw : resolve(raw);
    return existsSync(path) ? { kind: "module", path } : `${where}: no module at ${path}`;
  }
  return `${where} must be a Lambda ARN, lambda:<name>, a loopback http URL or a .mjs/.js/.ts module path`;
}

function hookSettings(
  given: Record<string, { target: string; timeoutMs?: number }> | undefined,
): ServiceSettings["hooks"] {
  const hooks: ServiceSettings["hooks"] = {};
  const found: string[] = [];
  for (const name of HOOK_NAMES) {
    const entry = given?.[name];
    if (!entry) continue;
    const target = hookTarget(`hooks.${name}.target`, entry.target);
    if (typeof target === "string") found.push(target);
    else hooks[name] = { target, timeoutMs: entry.timeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS };
  }
  if (found.length > 0) throw new ConfigError(`SVC_CONFIG is invalid: ${found.join("; ")}`);
  return hooks;
}

/** On Lambda there is no local module or loopback server to reach. */
function onlyLambdaHooks(settings: ServiceSettings): ServiceSettings {
  const local = Object.entries(settings.hooks).filter(([, hook]) => hook.target.kind !== "lambda");
  if (local.length > 0)
    throw new ConfigError(
      `SVC_CONFIG is invalid: on Lambda hooks must be Lambda functions (${local.map(([n]) => n).join(", ")})`,
    );
  return settings;
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
 * The WebAuthn relying party: the configured RP ID or the issuer's host, and the origins that
 * may run ceremonies (the issuer's, then the configured ones). `offered` is false while the
 * RP ID is an IP address, which browsers refuse: the hosted pages then show no passkey button.
 */
export function relyingParty(cfg: Config) {
  const issuer = URL.canParse(cfg.issuer) ? new URL(cfg.issuer) : undefined;
  const { rpId, rpName, origins } = cfg.settings.passkeys;
  const id = rpId ?? issuer?.hostname ?? "localhost";
  return {
    id,
    name: rpName,
    origins: [...new Set([...(issuer ? [issuer.origin] : []), ...origins])],
    offered: !/^[0-9.]+$|^\[/.test(id),
  };
}

let current: Config | undefined;

/** The configuration, read and validated on first use (cold start). */
export function config(): Config {
  current ??= loadConfig(process.env);
  return current;
}

/**
 * Whether X-Ray tracing may run (lib/tracing.ts): on Lambda (AWS_EXECUTION_ENV), unless
 * POWERTOOLS_TRACE_ENABLED=false. Powertools then makes the final call from its own variables.
 */
export function tracingWanted(env: Env = process.env): boolean {
  return Boolean(env.AWS_EXECUTION_ENV) && env.POWERTOOLS_TRACE_ENABLED?.toLowerCase() !== "false";
}

/**
 * The SDK warns on every local run that Node 20 support ends in 2027; locally that is
 * known (Lambda runs nodejs22.x) and the lock file pins the SDK, so local tools mute it.
 */
export const LOCAL_TOOL_ENV = { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true" };

/** Local tools (npm start, invoke, svc-admin) set defaults before first use. */
export function setEnvDefaults(defaults: Record<string, string>): void {
  for (const [name, value] of Object.entries(defaults)) process.env[name] ??= value;
  current = undefined;
}

/** The working directory's environment, for local tools that pass it to children. */
export function processEnv(): Env {
  return process.env;
}
