import { loadConfig, tracingWanted } from "./config/environment";
import type { Config } from "./config/settings";

/** The one module that reads process.env: the rest of the code is handed what it holds. */

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

/** The working directory's environment, for local tools that pass it to children. */
export function processEnv(): Record<string, string | undefined> {
  return process.env;
}

/** Whether X-Ray tracing may run in this process (lib/tracing.ts). */
export const tracingInProcess = (): boolean => tracingWanted(process.env);
