import { LambdaClient } from "@aws-sdk/client-lambda";
import type { HookTarget } from "../config";
import { traced } from "../tracing";
import { httpTransport } from "./http-transport";
import { lambdaTransport } from "./lambda-transport";
import { moduleTransport } from "./module-transport";
import type { HookTransport } from "./transport";

/** The adapter for a configured target; the Lambda client is made once, on first use. */
export function transportsFor(region: string): (target: HookTarget) => HookTransport {
  let client: LambdaClient | undefined;
  const lambda = () => {
    client ??= traced(new LambdaClient({ region }));
    return client;
  };
  return (target) => {
    if (target.kind === "lambda") return lambdaTransport(lambda, target.functionName);
    if (target.kind === "http") return httpTransport(target.url);
    return moduleTransport(target.path);
  };
}
