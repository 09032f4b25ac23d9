import { InvokeCommand, type InvokeCommandOutput, LambdaClient } from "@aws-sdk/client-lambda";
import { traced } from "../tracing";

/**
 * The Lambda SDK's part of a Lambda hook, imported on the first call (lambda-transport.ts):
 * functions that never call one do not evaluate the SDK at a cold start.
 */

const clients = new Map<string, LambdaClient>();

/** One Invoke; the client of a region is made once per container. */
export function invoke(
  region: string,
  functionName: string,
  type: "RequestResponse" | "Event",
  input: object,
  signal: AbortSignal,
): Promise<InvokeCommandOutput> {
  let client = clients.get(region);
  if (!client) {
    client = traced(new LambdaClient({ region }));
    clients.set(region, client);
  }
  return client.send(
    new InvokeCommand({
      FunctionName: functionName,
      InvocationType: type,
      Payload: Buffer.from(JSON.stringify(input)),
    }),
    { abortSignal: signal },
  );
}
