import { existsSync } from "node:fs";
import { isIP } from "node:net";
import { isAbsolute, resolve } from "node:path";
import { validateSettings } from "../compiled/settings-validator";
import { HOOK_NAMES } from "../domain/hooks/contracts";
import { ORG_SSO_TYPE } from "../domain/organizations/sso-ports";
import { permissionKind } from "../domain/permissions";
import { type CorsSettings, corsOriginProblem } from "../http/cors";
import { brandingProblems } from "./branding";
import {
  type BrandingSettings,
  DEFAULT_BREACHED_TIMEOUT_MS,
  DEFAULT_HOOK_TIMEOUT_MS,
  DEFAULT_PROVIDER_SCOPE,
  defaultSettings,
  type HookTarget,
  type ServiceSettings,
} from "./settings";

/**
 * The checks of an operator's settings file (docs/configuration.md): the only module that
 * loads the compiled settings validator, so a typo stops the service at cold start.
 */

export class ConfigError extends Error {}

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
    accountDeletion: { ...defaultSettings.accountDeletion, ...given.accountDeletion },
    defaultLanguage: (given.defaultLanguage as ServiceSettings["defaultLanguage"]) ?? "ru",
    search: { ...defaultSettings.search, ...given.search },
    federation: federationSettings(given.federation),
    audit: { ...defaultSettings.audit, ...given.audit },
    clients: { ...defaultSettings.clients, ...given.clients },
    clientRegistration: clientRegistrationSettings(given.clientRegistration),
    cors: corsSettings(given.cors),
    passkeys: passkeySettings(given.passkeys),
    hooks: hookSettings(given.hooks as Record<string, { target: string; timeoutMs?: number }> | undefined),
    branding: brandingSettings(given.branding),
    organizations: organizationSettings(given.organizations),
    invitations: { ...defaultSettings.invitations, ...given.invitations },
  };
  if (settings.passwordPolicy.minLength > settings.passwordPolicy.maxLength) {
    throw new ConfigError("SVC_CONFIG is invalid: passwordPolicy.minLength exceeds maxLength");
  }
  return settings;
}

/** DNS servers as node:dns takes them: an IP address, with a port after ":" (IPv6 in brackets then). */
const RESOLVER = /^(?:\[(?<v6>[0-9a-fA-F:.]+)\]|(?<v4>[0-9.]+))(?::(?<port>[0-9]{1,5}))?$/;

function resolverProblem(entry: string): boolean {
  const bare = isIP(entry) === 6;
  const match = RESOLVER.exec(entry);
  const host = match?.groups?.v6 ?? match?.groups?.v4;
  const port = Number(match?.groups?.port ?? 53);
  return !bare && (!host || isIP(host) === 0 || port < 1 || port > 65535);
}

/** Verified domains' TXT lookups: at most 4 resolvers, each an address; a try waits 100 ms to 10 s. */
function organizationSettings(given: Partial<ServiceSettings["organizations"]> | undefined) {
  const settings = { ...defaultSettings.organizations, ...given };
  const wrong = settings.dnsResolvers.filter(resolverProblem);
  if (wrong.length > 0 || settings.dnsResolvers.length > 4)
    throw new ConfigError(
      `SVC_CONFIG is invalid: organizations.dnsResolvers takes at most 4 IP addresses, each with an optional :port${wrong.length > 0 ? `, not ${wrong.join(" ")}` : ""}`,
    );
  if (settings.dnsTimeoutMs < 100 || settings.dnsTimeoutMs > 10000)
    throw new ConfigError("SVC_CONFIG is invalid: organizations.dnsTimeoutMs is from 100 to 10000");
  return settings;
}

/** Open registration grants only user permissions: a registered client is a third party the user consents to. */
function clientRegistrationSettings(
  given: Partial<ServiceSettings["clientRegistration"]> | undefined,
): ServiceSettings["clientRegistration"] {
  const policy = { ...defaultSettings.clientRegistration, ...given };
  const notUser = policy.scopes.filter((s) => permissionKind(s) !== "user");
  if (notUser.length > 0)
    throw new ConfigError(
      `SVC_CONFIG is invalid: clientRegistration.scopes may name user permissions only, not ${notUser.join(" ")}`,
    );
  return policy;
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
    // The federated callback reads a state of this type as an organization's own provider (docs/organizations.md).
    if (p.type.toLowerCase() === ORG_SSO_TYPE) {
      found.push(`federation.providers[${i}].type "${p.type}" is reserved for organizations' single sign-on`);
    }
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

function brandingSettings(given: Partial<BrandingSettings> | undefined): BrandingSettings {
  const branding = { ...structuredClone(given), clients: structuredClone(given?.clients ?? {}) };
  const found = brandingProblems(branding);
  if (found.length > 0) throw new ConfigError(`SVC_CONFIG is invalid: ${found.join("; ")}`);
  return branding;
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
export function onlyLambdaHooks(settings: ServiceSettings): ServiceSettings {
  const local = Object.entries(settings.hooks).filter(([, hook]) => hook.target.kind !== "lambda");
  if (local.length > 0)
    throw new ConfigError(
      `SVC_CONFIG is invalid: on Lambda hooks must be Lambda functions (${local.map(([n]) => n).join(", ")})`,
    );
  return settings;
}
