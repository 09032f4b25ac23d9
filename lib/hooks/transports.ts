import type { HookTarget } from "../config/settings";
import { httpTransport } from "./http-transport";
import { lambdaTransport } from "./lambda-transport";
import { moduleTransport } from "./module-transport";
import type { HookTransport } from "./transport";

/** The adapter for a configured target. */
export function transportsFor(region: string): (target: HookTarget) => HookTransport {
  return (target) => {
    if (target.kind === "lambda") return lambdaTransport(region, target.functionName);
    if (target.kind === "http") return httpTransport(target.url);
    return moduleTransport(target.path);
  };
}
