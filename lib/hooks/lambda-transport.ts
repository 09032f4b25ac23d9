import { InvokeCommand, type InvokeCommandOutput, type LambdaClient } from "@aws-sdk/client-lambda";
import type { HookTransport } from "./transport";

/**
 * A Lambda function: RequestResponse for synchronous hooks, Event for asynchronous ones
 * (Lambda then retries a failed run twice by itself).
 */
export function lambdaTransport(client: () => LambdaClient, functionName: string): HookTransport {
  const invoke = (
    type: "RequestResponse" | "Event",
    input: object,
    signal: AbortSignal,
  ): Promise<InvokeCommandOutput> =>
    client().send(
      new InvokeCommand({
        FunctionName: functionName,
        InvocationType: type,
        Payload: Buffer.from(JSON.stringify(input)),
      }),
      { abortSignal: signal },
    );
  return {
    async request(input, signal) {
      const answer = await invoke("RequestResponse", input, signal);
      // The function threw: Lambda answers 200 with the error in the payload.
      if (answer.FunctionError) throw new Error(`the hook function failed (${answer.FunctionError})`);
      const text = answer.Payload ? Buffer.from(answer.Payload).toString("utf8") : "";
      return text === "" ? undefined : JSON.parse(text);
    },
    async dispatch(input, signal) {
      const answer = await invoke("Event", input, signal);
      if (answer.StatusCode !== 202) throw new Error(`the hook function was not queued (HTTP ${answer.StatusCode})`);
    },
    retriesItself: true,
  };
}
