import { loadConfig } from "./environment";
import type { Config } from "./settings";

let current: Config | undefined;

/** The process's configuration, read and validated on first use (cold start). */
export function config(): Config {
  current ??= loadConfig(process.env);
  return current;
}

/** Local tools (npm start, invoke, svc-admin) and tests set defaults before first use. */
export function setEnvDefaults(defaults: Record<string, string>): void {
  for (const [name, value] of Object.entries(defaults)) process.env[name] ??= value;
  current = undefined;
}
